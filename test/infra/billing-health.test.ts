// BillingHealth under Pulumi mocks: log alerts on the consumers' metrics in Application Insights and a workbook per
// environment, given the Application Insights component the consumers export to.
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { attributeNames as infraAttributes, metricNames as infraMetrics } from "../../infra/specs/index.js";
import { BillingHealth, stableGuid } from "../../infra/components/billing-health.js";
import { azureMocks, type MockedResource } from "../../infra/plan/azure-mocks.js";
import { attributeNames, metricNames } from "../../runtime/telemetry/metric-names.js";


const appInsights = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-obs/providers/Microsoft.Insights/components/appi-billing";
const ofType = (mocked: MockedResource[], type: string) => mocked.filter((r) => r.custom && r.type === `azure-native:${type}`);
interface Criterion {
  query: string;
  threshold: number;
  operator: string;
  metricMeasureColumn: string;
  dimensions: { name: string }[];
}
const criterionOf = (rule: MockedResource) => (rule.inputs.criteria as { allOf: Criterion[] }).allOf[0] as Criterion;

describe("billing health", () => {
  it("names the runtime's metrics exactly (infra keeps a copy: it may not import runtime)", () => {
    for (const [key, name] of Object.entries(infraMetrics)) expect(metricNames[key as keyof typeof metricNames], key).toBe(name);
    for (const [key, name] of Object.entries(infraAttributes)) expect(attributeNames[key as keyof typeof attributeNames], key).toBe(name);
  });

  it("alerts on unknown outcomes, the oldest pending billing, spend utilization, dead letters by reason and a breaker open for 5 minutes, and deploys a workbook", async () => {
    const mocked: MockedResource[] = [];
    await pulumi.runtime.setMocks(azureMocks((r) => mocked.push(r)), "chargeguard", "test", false);
    const health = new BillingHealth("health", {
      resourceGroupName: "rg",
      environment: "dev",
      applicationInsightsId: appInsights,
      namespaceId: "/subscriptions/x/resourceGroups/rg/providers/Microsoft.ServiceBus/namespaces/sb-dev",
      actionGroupId: "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Insights/actionGroups/ag",
      thresholds: { oldestPendingSeconds: 480 },
    });
    await new Promise((resolve) => pulumi.all([...health.alerts.map((a) => a.id), health.workbook.id]).apply(resolve));

    const order = ["health-unknown-outcomes", "health-oldest-pending", "health-spend-utilization", "health-dead-letters", "health-breaker-open"];
    const rules = ofType(mocked, "monitor:ScheduledQueryRule").sort((a, b) => order.indexOf(String(a.inputs.ruleName)) - order.indexOf(String(b.inputs.ruleName)));
    expect(rules.map((rule) => rule.inputs.ruleName)).toEqual(order);
    for (const rule of rules) {
      expect(rule.inputs).toMatchObject({ scopes: [appInsights], enabled: true, actions: { actionGroups: [expect.stringContaining("actionGroups/ag")] } });
      expect(criterionOf(rule)).toMatchObject({ operator: "GreaterThan", metricMeasureColumn: "value" });
    }
    const [unknown, pending, utilization, deadLetters, breakerOpen] = rules.map(criterionOf);
    expect(unknown?.query).toContain(`name == "chargeguard.billing.outcomes"`);
    expect(unknown?.query).toContain(`customDimensions["chargeguard.outcome"]) == "unknown"`);
    expect(unknown?.threshold).toBe(5);
    expect(pending?.query).toContain(`"chargeguard.pending.oldest_age"`);
    expect(pending?.threshold).toBe(480);
    expect(utilization?.threshold).toBe(0.9);
    expect(utilization?.dimensions.map((d) => d.name)).toEqual(["period", "currency"]);
    expect(deadLetters?.query).toContain(`customDimensions["chargeguard.dead_letter.reason"]`);
    expect(deadLetters?.dimensions.map((d) => d.name)).toEqual(["reason"]);
    // A dependency's breaker open on some replica for the whole 5-minute window.
    expect(breakerOpen?.query).toContain(`name == "chargeguard.dependency.breaker.state"`);
    expect(breakerOpen?.query).toContain("min(valueMin)");
    expect(breakerOpen?.dimensions.map((d) => d.name)).toEqual(["dependency"]);
    expect(rules.at(-1)?.inputs).toMatchObject({ windowSize: "PT5M" });

    const [workbook] = ofType(mocked, "applicationinsights:Workbook");
    expect(workbook?.inputs).toMatchObject({ kind: "shared", category: "workbook", sourceId: appInsights, displayName: "Billing health (dev)" });
    expect(workbook?.inputs.resourceName).toBe(stableGuid("chargeguard-billing-health/dev/health"));
    expect(workbook?.inputs.resourceName).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const data = JSON.parse(String(workbook?.inputs.serializedData)) as { version: string; items: { type: number; name: string; content: { query?: string; resourceIds?: string[] } }[] };
    expect(data.version).toBe("Notebook/1.0");
    expect(data.items.map((item) => item.name)).toEqual(expect.arrayContaining(["Duplicates prevented, by source", "Billing outcomes", "broker"]));
    expect(data.items.find((item) => item.name === "broker")?.content.resourceIds).toEqual([expect.stringContaining("namespaces/sb-dev")]);
  });

  it("refuses thresholds that cannot alert", async () => {
    await pulumi.runtime.setMocks(azureMocks(() => undefined), "chargeguard", "test", false);
    const args = { resourceGroupName: "rg", environment: "dev", applicationInsightsId: appInsights };
    expect(() => new BillingHealth("zero", { ...args, thresholds: { oldestPendingSeconds: 0 } })).toThrow(/oldestPendingSeconds must be a positive number/);
    expect(() => new BillingHealth("over", { ...args, thresholds: { oldestPendingSeconds: 60, spendUtilization: 1.5 } })).toThrow(/spendUtilization must be in \(0, 1\]/);
  });
});
