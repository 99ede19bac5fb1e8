// Application Insights takes telemetry with Entra tokens only (issue 35, item 7): the component disables local auth,
// each consumer's identity holds Monitoring Metrics Publisher on it (the generated consumer's exporter signs in as
// AZURE_CLIENT_ID: test/templates/telemetry-export.test.ts), and the connection string is a Pulumi secret wherever it
// flows. The policies fail a plan that turns local auth back on, drops the role or the app's identity.
import { fileURLToPath } from "node:url";
import type { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { beforeAll, describe, expect, it } from "vitest";
import { builtInRoles } from "../../infra/specs/index.js";
import { REDACTED } from "../../infra/plan/azure-mocks.js";
import { resourceArgs, stackArgs, urnOf, type PolicyTarget } from "../../infra/plan/policy-args.js";
import { planStack, type Plan } from "../../infra/plan/run-plan.js";
import { appInsightsLocalAuthDisabled, telemetryPublisherRole } from "../../infra/policy/telemetry-policies.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const plans: Record<string, Plan> = {};
beforeAll(async () => {
  for (const stack of ["dev", "prod"]) plans[stack] = await planStack({ stack, cwd: root });
});

const ofType = (plan: Plan, type: string) => plan.mocked.filter((r) => r.custom && r.type === `azure-native:${type}`);
const targets = (plan: Plan, stack: string): PolicyTarget[] =>
  plan.mocked
    .filter((r) => r.custom)
    .map((r) => {
      const state = structuredClone(r.state);
      return { type: r.type, name: r.name, urn: urnOf(stack, "chargeguard", r.type, r.name), inputs: state, outputs: state };
    });
type Env = { name: string; value?: unknown }[];
const envOf = (target: PolicyTarget) => (target.inputs.template as { containers: { env: Env }[] }).containers[0]!.env;

async function stackViolations(policy: StackValidationPolicy, subjects: PolicyTarget[]): Promise<string[]> {
  const messages: string[] = [];
  await policy.validateStack(stackArgs(subjects), (message) => messages.push(message));
  return messages;
}
async function resourceViolations(policy: ResourceValidationPolicy, subject: PolicyTarget): Promise<string[]> {
  const messages: string[] = [];
  const validate = policy.validateResource as (args: ReturnType<typeof resourceArgs>, report: (message: string) => void) => Promise<void> | void;
  await validate(resourceArgs(subject), (message) => messages.push(message));
  return messages;
}

describe.each(["dev", "prod"])("Application Insights in the %s stack", (stack) => {
  it("disables local auth, grants each consumer identity Monitoring Metrics Publisher on it, and keeps the connection string secret", () => {
    const plan = plans[stack]!;
    const [component] = ofType(plan, "applicationinsights:Component");
    expect(component?.inputs.disableLocalAuth).toBe(true);
    const publishers = ofType(plan, "authorization:RoleAssignment").filter((r) => String(r.inputs.roleDefinitionId).endsWith(`/${builtInRoles.monitoringMetricsPublisher}`));
    const apps = ofType(plan, "app:ContainerApp");
    expect(apps.length).toBeGreaterThan(0);
    for (const app of apps) {
      const env = (app.inputs.template as { containers: { env: Env }[] }).containers[0]!.env;
      const clientId = env.find((entry) => entry.name === "AZURE_CLIENT_ID")?.value;
      const identity = ofType(plan, "managedidentity:UserAssignedIdentity").find((r) => r.state.clientId === clientId);
      expect(publishers.filter((grant) => grant.inputs.principalId === identity?.state.principalId).map((grant) => grant.inputs.scope), String(app.inputs.containerAppName)).toEqual([component?.id]);
      // The mocks see a Pulumi secret as the wire's secret marker: the plan shows it redacted, state holds it encrypted.
      expect(env.find((entry) => entry.name === "APPLICATIONINSIGHTS_CONNECTION_STRING")?.value).toBe(REDACTED);
    }
    expect(plan.report.violations.filter((v) => ["appinsights-local-auth-disabled", "consumer-telemetry-publisher"].includes(v.policy))).toEqual([]);
  });

  it("fails the policies when local auth is back on, the role is missing or the app names no identity", async () => {
    const subjects = targets(plans[stack]!, stack);
    const component = subjects.find((s) => s.type === "azure-native:applicationinsights:Component")!;
    expect(await resourceViolations(appInsightsLocalAuthDisabled, component)).toEqual([]);
    delete component.inputs.disableLocalAuth;
    expect(await resourceViolations(appInsightsLocalAuthDisabled, component)).toEqual([expect.stringMatching(/set disableLocalAuth: true/)]);

    expect(await stackViolations(telemetryPublisherRole, subjects)).toEqual([]);
    const isPublisher = (s: PolicyTarget) => s.type === "azure-native:authorization:RoleAssignment" && String(s.outputs.roleDefinitionId).endsWith(`/${builtInRoles.monitoringMetricsPublisher}`);
    const apps = subjects.filter((s) => s.type === "azure-native:app:ContainerApp");
    expect(await stackViolations(telemetryPublisherRole, subjects.filter((s) => !isPublisher(s)))).toEqual(
      apps.map(() => expect.stringMatching(/holds no Monitoring Metrics Publisher/)),
    );
    const [first] = apps;
    const env = envOf(first!);
    env.splice(env.findIndex((entry) => entry.name === "AZURE_CLIENT_ID"), 1);
    expect(await stackViolations(telemetryPublisherRole, subjects)).toEqual([expect.stringMatching(/exports telemetry without AZURE_CLIENT_ID/)]);
  });
});
