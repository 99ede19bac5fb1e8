// Every alert provably able to fire: each planned alert names its signal, and that signal is checked against
// Microsoft's supported-metrics tables kept in infra/data/metrics (aggregation, dimensions, DS Export). The policy
// alerts-can-fire refuses the two alerts issue 31 found dead or misleading: a log query on DeadletteredMessages
// (never exported by diagnostic settings) and is_db_alive aggregated by Minimum.
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { logSignalProblems, metricSignalProblems, metricTables } from "../../infra/specs/index.js";
import { stackArgs } from "../../infra/plan/policy-args.js";
import { planStack, type Plan } from "../../infra/plan/run-plan.js";
import { alertsCanFire } from "../../infra/policy/alert-policies.js";
import { planTargets } from "./support/plan-targets.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const plans: Record<string, Plan> = {};
beforeAll(async () => {
  plans.dev = await planStack({ stack: "dev", cwd: root });
  plans.prod = await planStack({ stack: "prod", cwd: root });
});

async function violations(plan: Plan, edit: (targets: ReturnType<typeof planTargets>) => void = () => {}): Promise<string[]> {
  const targets = planTargets(plan);
  edit(targets);
  const messages: string[] = [];
  await alertsCanFire.validateStack(stackArgs(targets), (message) => messages.push(message));
  return messages;
}

describe("Microsoft's supported-metrics tables, kept as data", () => {
  it("name their source and hold the export facts the alerts depend on", () => {
    for (const table of metricTables.values()) {
      expect(table.source.url).toMatch(/^https:\/\/learn\.microsoft\.com\/azure\/azure-monitor\/reference\/supported-metrics\//);
      expect(Object.keys(table.metrics).length).toBeGreaterThan(5);
    }
    const serviceBus = metricTables.get("microsoft.servicebus/namespaces")!.metrics;
    for (const gauge of ["DeadletteredMessages", "ActiveMessages", "ScheduledMessages"]) {
      expect(serviceBus[gauge]).toMatchObject({ aggregations: ["Average", "Minimum", "Maximum"], dimensions: ["EntityName"], dsExport: false });
    }
    expect(serviceBus.IncomingMessages?.dsExport).toBe(true);
    expect(serviceBus.AbandonMessage?.dsExport).toBe(true);
    expect(metricTables.get("microsoft.dbforpostgresql/flexibleservers")!.metrics.is_db_alive?.recommendedAggregation).toBe("Maximum");
    expect([...metricTables.keys()].sort()).toEqual(["microsoft.app/containerapps", "microsoft.app/jobs", "microsoft.dbforpostgresql/flexibleservers", "microsoft.servicebus/namespaces"]);
  });
});

describe.each(["dev", "prod"])("the %s plan's alerts", (stack) => {
  it("each name a signal that arrives", async () => {
    const plan = plans[stack] as Plan;
    expect(plan.report.alerts.length).toBeGreaterThan(15);
    for (const alert of plan.report.alerts) {
      expect(alert.signals.length, alert.name).toBeGreaterThan(0);
      for (const signal of alert.signals) {
        const problems = signal.kind === "platform metric" ? metricSignalProblems(signal, alert.scope) : logSignalProblems(signal);
        expect(problems, `${alert.name}: ${JSON.stringify(signal)}`).toEqual([]);
      }
    }
    expect(await violations(plan)).toEqual([]);
  });

  it("watch dead letters per queue with metric alerts (one stateless, repeating), and no log query reads AzureMetrics", () => {
    const plan = plans[stack] as Plan;
    for (const queue of plan.config.queues) {
      const deadLetterAlerts = plan.report.alerts.filter((alert) =>
        alert.signals.some((s) => s.kind === "platform metric" && s.metric === "DeadletteredMessages") && alert.name.includes(`-${queue.name}-`),
      );
      expect(deadLetterAlerts.map((a) => [a.stateful, a.signals])).toEqual([
        [true, [expect.objectContaining({ kind: "platform metric", aggregation: "Maximum", dimensions: ["EntityName"] })]],
        [false, [expect.objectContaining({ kind: "platform metric", aggregation: "Maximum", dimensions: ["EntityName"] })]],
      ]);
    }
    expect(plan.report.alerts.flatMap((a) => a.signals).filter((s) => s.kind === "log" && s.table === "AzureMetrics")).toEqual([]);
    const alive = plan.report.alerts.find((a) => a.name.endsWith("-alive"));
    expect(alive?.signals).toEqual([expect.objectContaining({ metric: "is_db_alive", aggregation: "Maximum" })]);
  });
});

describe("the policy alerts-can-fire", () => {
  const criterionOf = (inputs: Record<string, unknown>) => (inputs.criteria as { allOf: Record<string, unknown>[] }).allOf[0] as Record<string, unknown>;

  it("refuses is_db_alive by Minimum, a gauge by Total, a dimension the metric lacks and a metric on the wrong resource", async () => {
    const messages = await violations(plans.dev as Plan, (targets) => {
      const alert = (suffix: string) => targets.find((t) => t.type === "azure-native:monitor:MetricAlert" && String(t.inputs.ruleName).endsWith(suffix))!;
      criterionOf(alert("-alive").outputs).timeAggregation = "Minimum";
      criterionOf(alert("-usage-billing-backlog").outputs).timeAggregation = "Total";
      criterionOf(alert("-usage-billing-throttled").outputs).dimensions = [{ name: "QueueName", operator: "Include", values: ["usage-billing"] }];
      criterionOf(alert("-restarts").outputs).metricNamespace = "Microsoft.ServiceBus/namespaces";
    });
    expect(messages.sort()).toEqual([
      "metric alert sb-billing-dev-usage-billing-throttled cannot fire as intended: ThrottledRequests has no dimension QueueName (it has EntityName, OperationResult, MessagingErrorSubCode)",
      "metric alert sb-billing-dev-usage-billing-backlog cannot fire as intended: ActiveMessages supports Average, Minimum, Maximum, not Total (Supported metrics for Microsoft.ServiceBus/Namespaces (Azure Monitor reference))",
      "metric alert usage-billing-consumer-restarts cannot fire as intended: it reads Microsoft.ServiceBus/namespaces metrics but is scoped to a Microsoft.App/containerApps",
      "metric alert usage-billing-consumer-restarts cannot fire as intended: Microsoft.ServiceBus/namespaces has no metric RestartCount (Supported metrics for Microsoft.ServiceBus/Namespaces (Azure Monitor reference))",
      "metric alert psql-billing-dev-alive cannot fire as intended: is_db_alive is aggregated with Maximum as Microsoft documents it, not Minimum",
    ].sort());
  });

  it("refuses the old new-dead-letters log alert: AzureMetrics never holds DeadletteredMessages", async () => {
    const messages = await violations(plans.dev as Plan, (targets) => {
      const workspace = targets.find((t) => t.type === "azure-native:operationalinsights:Workspace")!;
      const inputs = {
        ruleName: "sb-billing-dev-new-dead-letters",
        scopes: [workspace.outputs.id],
        criteria: { allOf: [{ query: 'AzureMetrics\n| where MetricName == "DeadletteredMessages"\n| summarize max(Maximum)' }] },
      };
      targets.push({ type: "azure-native:monitor:ScheduledQueryRule", name: "old", urn: "urn:pulumi:dev::chargeguard::azure-native:monitor:ScheduledQueryRule::old", inputs, outputs: inputs });
    });
    expect(messages).toEqual([
      "log alert sb-billing-dev-new-dead-letters cannot fire as intended: AzureMetrics never holds DeadletteredMessages: diagnostic settings do not export it (DS Export: No); alert on it with a metric alert",
    ]);
  });
});
