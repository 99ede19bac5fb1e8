// Zone-redundant prod (issue 43 item 3): every app in the zone-redundant environment keeps two replicas, the tuning,
// the stack config and the policy pack agree on it; and no replica alert fires on day one (dev's 1..1 app "at max").
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { parseStackConfig, readStackConfigFile } from "../../infra/config/index.js";
import { stackArgs, type PolicyTarget } from "../../infra/plan/policy-args.js";
import { planStack, type Plan } from "../../infra/plan/run-plan.js";
import { alertsQuietAtRest } from "../../infra/policy/alert-policies.js";
import { zoneRedundantReplicas } from "../../infra/policy/zone-policies.js";
import { replicaBounds, ReplicaBudgetError, ZONE_REDUNDANT_MIN_REPLICAS } from "../../tuning/index.js";
import { planTargets } from "./support/plan-targets.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const plans: Record<string, Plan> = {};
beforeAll(async () => {
  for (const stack of ["dev", "prod"]) plans[stack] = await planStack({ stack, cwd: root });
}, 120_000);

async function run(policy: typeof zoneRedundantReplicas, subjects: PolicyTarget[]): Promise<string[]> {
  const messages: string[] = [];
  await policy.validateStack(stackArgs(subjects), (message) => messages.push(message));
  return messages;
}
const apps = (subjects: PolicyTarget[]) => subjects.filter((s) => s.type === "azure-native:app:ContainerApp");
const scaleOf = (app: PolicyTarget) => (app.outputs.template as { scale: { minReplicas: number; maxReplicas: number } }).scale;

describe("replicas in a zone-redundant environment", () => {
  it("prod's apps run at least two replicas, and the policy passes prod and dev as planned", async () => {
    const prod = planTargets(plans.prod!);
    expect(apps(prod).map((app) => [app.outputs.containerAppName, scaleOf(app).minReplicas])).toEqual([
      ["usage-billing-consumer", 2],
      ["invoice-settlement-consumer", 2],
    ]);
    expect(plans.prod!.report.consumers.map((c) => c.bounds.minReplicas)).toEqual([2, 2]);
    expect(await run(zoneRedundantReplicas, prod)).toEqual([]);
    expect(await run(zoneRedundantReplicas, planTargets(plans.dev!))).toEqual([]);
  });

  it("refuses the one replica prod ran before, in the policy, the tuning and the stack config", async () => {
    const prod = planTargets(plans.prod!);
    scaleOf(apps(prod)[0]!).minReplicas = 1;
    expect(await run(zoneRedundantReplicas, prod)).toEqual([
      "app usage-billing-consumer: template.scale.minReplicas 1 in zone-redundant environment: keep at least 2 (3 ideal), or losing a zone stops its queue's billing",
    ]);
    const budget = { maxConcurrentCalls: 2, maxConcurrentStripeCalls: 1, stripeRatePerSecond: 20, connectionBudget: 380, deliveryBudgetMs: 100_000, zoneRedundant: true };
    expect(replicaBounds(budget).minReplicas).toBe(ZONE_REDUNDANT_MIN_REPLICAS);
    expect(replicaBounds({ ...budget, zoneRedundant: false }).minReplicas).toBe(1);
    expect(() => replicaBounds({ ...budget, minReplicas: 1 })).toThrow(ReplicaBudgetError);
    expect(() => replicaBounds({ ...budget, minReplicas: 1 })).toThrow(/minReplicas is 1 in a zone-redundant environment/);

    const file = readStackConfigFile({ stack: "prod", cwd: root });
    const app = file.values["chargeguard:app"] as { consumers: Record<string, unknown>[] };
    app.consumers[0]!.minReplicas = 1;
    expect(() => parseStackConfig(file.values, "Pulumi.prod.yaml", "prod")).toThrow(/app\.consumers\[0\] \(usage-billing\): minReplicas is 1 in a zone-redundant environment/);
  });
});

describe("replica alerts that cannot fire on day one", () => {
  it("dev (1..1) and prod (2..2) carry no replicas-at-max alert, and both plans pass the policy", async () => {
    for (const stack of ["dev", "prod"]) {
      const subjects = planTargets(plans[stack]!);
      expect(subjects.filter((s) => String(s.outputs.ruleName).endsWith("replicas-at-max"))).toEqual([]);
      expect(await run(alertsQuietAtRest, subjects)).toEqual([]);
    }
  });

  it("names the alert dev had: Replicas Minimum > 0 on an app that runs 1..1", async () => {
    const dev = planTargets(plans.dev!);
    const app = apps(dev)[0]!;
    const noReplicas = dev.find((s) => String(s.outputs.ruleName).endsWith("no-replicas"))!;
    const atMax = structuredClone(noReplicas);
    atMax.outputs.ruleName = atMax.inputs.ruleName = "usage-billing-consumer-replicas-at-max";
    atMax.urn = `${noReplicas.urn}-at-max`;
    (atMax.outputs.criteria as { allOf: Record<string, unknown>[] }).allOf[0] = { metricName: "Replicas", operator: "GreaterThan", timeAggregation: "Minimum", threshold: 0 };
    expect(await run(alertsQuietAtRest, [...dev, atMax])).toEqual([
      `alert usage-billing-consumer-replicas-at-max: Replicas GreaterThan 0 on app ${String(app.outputs.containerAppName)}, which runs 1..1 replicas: it fires on day one and never resolves`,
    ]);
  });
});
