// The nightly audit (issue 31 item 6): both plans deploy `chargeguard audit` as a scheduled Container Apps Job with
// its own identity and its own restricted key from Key Vault, no refunds, and an alert on duplicates found (the
// audit's exit 1 makes the execution Failed); the policy refuses a stack without it or with a weakened one.
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { stackArgs, type PolicyTarget } from "../../infra/plan/policy-args.js";
import { planStack, type Plan } from "../../infra/plan/run-plan.js";
import { nightlyAudit } from "../../infra/policy/audit-policies.js";
import { planTargets } from "./support/plan-targets.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const plans: Record<string, Plan> = {};
beforeAll(async () => {
  plans.dev = await planStack({ stack: "dev", cwd: root });
  plans.prod = await planStack({ stack: "prod", cwd: root });
});

async function violations(subjects: PolicyTarget[]): Promise<string[]> {
  const messages: string[] = [];
  await nightlyAudit.validateStack(stackArgs(subjects), (message) => messages.push(message));
  return messages;
}

const jobOf = (subjects: PolicyTarget[]) => subjects.find((s) => s.type === "azure-native:app:Job")!;
type Container = { command: string[]; env: { name: string; secretRef?: string }[] };
const containerOf = (job: PolicyTarget) => (job.outputs.template as { containers: Container[] }).containers[0]!;

describe.each(["dev", "prod"])("the %s plan's nightly audit", (stack) => {
  it("is a scheduled job running chargeguard audit without refunds, under its own identity and its own vault key, with an alert", async () => {
    const plan = plans[stack] as Plan;
    const subjects = planTargets(plan);
    const job = jobOf(subjects);
    const vault = subjects.find((s) => s.type === "azure-native:keyvault:Vault")!;
    const identity = subjects.find((s) => s.type === "azure-native:managedidentity:UserAssignedIdentity" && s.inputs.resourceName === "id-chargeguard-audit")!;
    expect(job.inputs).toMatchObject({
      jobName: "chargeguard-audit",
      identity: { type: "UserAssigned", userAssignedIdentities: [identity.inputs.id] },
      configuration: {
        triggerType: "Schedule",
        scheduleTriggerConfig: { cronExpression: "0 3 * * *" },
        secrets: [{ name: "stripe-audit-key", keyVaultUrl: `https://${String(vault.inputs.vaultName)}.vault.azure.net/secrets/stripe-audit-key`, identity: identity.inputs.id }],
      },
    });
    expect(containerOf(job).command).toEqual(["npx", "--no-install", "chargeguard", "audit", "--format", "json"]);
    expect(containerOf(job).env).toEqual([{ name: "STRIPE_API_KEY", secretRef: "stripe-audit-key" }]);
    // Its identity reads its own key only (granted before the job exists, issue 43 item 7) and holds nothing on any queue.
    const grants = subjects.filter((s) => s.type === "azure-native:authorization:RoleAssignment" && s.inputs.principalId === identity.inputs.principalId);
    expect(grants.map((g) => String(g.inputs.scope).split("/").slice(-2).join("/")).sort()).toEqual(["registries/crbilling" + (stack === "prod" ? "prod" : "dev"), "secrets/stripe-audit-key"].sort());
    expect(plan.report.resources.find((r) => r.type === "azure-native:app:Job")?.dependsOn).toEqual(expect.arrayContaining(grants.map((g) => g.name)));
    const alert = plan.report.alerts.find((a) => a.name === "chargeguard-audit-duplicates");
    expect(alert?.signals).toEqual([{ kind: "platform metric", resourceType: "Microsoft.App/jobs", metric: "Executions", aggregation: "Total", dimensions: ["state"], source: expect.stringContaining("microsoft-app-jobs-metrics") }]);
    expect(await violations(subjects)).toEqual([]);
  });
});

describe("the policy nightly-audit", () => {
  it("refuses a stack with consumers and no audit job", async () => {
    const subjects = planTargets(plans.prod as Plan).filter((s) => s.type !== "azure-native:app:Job");
    expect(await violations(subjects)).toEqual([
      "the stack deploys consumer apps but no nightly chargeguard audit job: a double charge from any system sharing the Stripe account would go unseen",
    ]);
  });

  it("refuses refunds, a consumer's identity or key, no schedule and no alert", async () => {
    const subjects = planTargets(plans.prod as Plan);
    const job = jobOf(subjects);
    const app = subjects.find((s) => s.type === "azure-native:app:ContainerApp")!;
    containerOf(job).command.push("--refund", "--yes");
    job.outputs.identity = app.outputs.identity;
    const configuration = job.outputs.configuration as { triggerType: string; secrets: { keyVaultUrl: string }[] };
    configuration.triggerType = "Manual";
    configuration.secrets[0]!.keyVaultUrl = (app.outputs.configuration as { secrets: { keyVaultUrl: string }[] }).secrets[0]!.keyVaultUrl;
    const withoutAlert = subjects.filter((s) => s.inputs.ruleName !== "chargeguard-audit-duplicates");
    expect(await violations(withoutAlert)).toEqual([
      "audit job chargeguard-audit: runs on no schedule (triggerType Schedule with a cron expression)",
      "audit job chargeguard-audit: passes --refund or --yes: refunds are a person's decision after review",
      "audit job chargeguard-audit: has no identity of its own (it shares a consumer's)",
      "audit job chargeguard-audit: reads the consumers' Stripe key: give it a restricted read-only key of its own (vault.secrets.stripeAuditKey)",
      "audit job chargeguard-audit: has no enabled metric alert with an action group on its failed executions (Executions, state Failed): duplicates found would go unseen",
    ]);
  });
});
