// The baseline alerts the prod plan deploys beyond the queues': the policy passes the plan as built and names each
// metric an alert is missing for.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { stackArgs, urnOf, type PolicyTarget } from "../../infra/plan/policy-args.js";
import { planStack } from "../../infra/plan/run-plan.js";
import { baselineAlerts } from "../../infra/policy/alert-policies.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

async function violations(subjects: PolicyTarget[]): Promise<string[]> {
  const messages: string[] = [];
  await baselineAlerts.validateStack(stackArgs(subjects), (message) => messages.push(message));
  return messages;
}

describe("service baseline alerts", () => {
  it("are all in the prod plan, and each missing one is named", async () => {
    const plan = await planStack({ stack: "prod", cwd: root });
    const subjects = plan.mocked
      .filter((r) => r.custom)
      .map((r) => ({ type: r.type, name: r.name, urn: urnOf("prod", "chargeguard", r.type, r.name), inputs: r.state, outputs: r.state }));
    expect(await violations(subjects)).toEqual([]);
    const alertOn = (metric: string) => (s: PolicyTarget) =>
      s.type === "azure-native:monitor:MetricAlert" && JSON.stringify((s.inputs.criteria as { allOf: unknown[] }).allOf).includes(`"metricName":"${metric}"`);
    const without = (...metrics: string[]) => subjects.filter((s) => !metrics.some((metric) => alertOn(metric)(s)));
    expect(subjects.filter(alertOn("maximum_used_transactionIDs"))).toHaveLength(1);
    expect(await violations(without("maximum_used_transactionIDs", "connections_failed", "NamespaceMemoryUsage"))).toEqual([
      "server psql-billing-prod: no enabled metric alert on connections_failed, maximum_used_transactionIDs",
      "namespace sb-billing-prod: no enabled metric alert on NamespaceMemoryUsage",
    ]);
    // No replicas-at-maximum alert where an app cannot scale: both prod apps run 2..2 (issue 43 item 3).
    expect(subjects.filter((s) => String(s.inputs.ruleName).endsWith("replicas-at-max"))).toEqual([]);
  });
});
