// Each planned alert with the signal it watches (alert-signals.ts): a platform metric of its scope, or a log table and
// what fills it. `chargeguard plan --json` prints them (`alerts`); the policy alerts-can-fire checks the same signals.
import { logAlertSignals, metricAlertSignals, resourceTypeOfId, type AlertSignal } from "../specs/index.js";
import { isType, types } from "../policy/resource-types.js";
import type { MockedResource } from "./azure-mocks.js";

export interface PlannedAlert {
  /** The alert rule's Azure name. */
  name: string;
  /** The resource type it is scoped to (a metric alert's resource, a log alert's workspace or Application Insights). */
  scope: string;
  /** Stateful (fires once, resolves) or stateless (notifies at every evaluation while the condition holds). */
  stateful: boolean;
  signals: AlertSignal[];
}

export function plannedAlerts(resources: MockedResource[]): PlannedAlert[] {
  return resources.flatMap((resource): PlannedAlert[] => {
    const metric = isType(resource.type, types.metricAlert);
    if (!metric && !isType(resource.type, types.scheduledQueryRule)) return [];
    const inputs = resource.inputs;
    return [
      {
        name: String(inputs.ruleName ?? resource.name),
        scope: resourceTypeOfId((inputs.scopes as unknown[] | undefined)?.[0]) ?? "?",
        stateful: inputs.autoMitigate !== false,
        signals: metric ? metricAlertSignals(inputs) : logAlertSignals(inputs),
      },
    ];
  });
}

/** One line for the plan's text: how many alerts watch which kind of signal. */
export function alertSignalSummary(alerts: PlannedAlert[]): string {
  const counts = new Map<string, number>();
  for (const signal of alerts.flatMap((alert) => alert.signals)) {
    const key = signal.kind === "platform metric" ? `${signal.resourceType} platform metrics` : `${signal.table} (filled by ${signal.filledBy})`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const parts = [...counts].map(([key, count]) => `${count} on ${key}`);
  return `Alert signals (each checked against Microsoft's supported-metrics tables in infra/data/metrics; --json: alerts): ${parts.join("; ")}.`;
}
