// Billing health for one environment: log alerts on the consumers' own metrics in Application Insights (unknown
// outcomes, the oldest pending billing past the reconcile threshold, spend utilization, new dead letters by reason)
// and an Azure Monitor workbook with those panels beside the broker's metrics. It takes the Application Insights
// resource as an input: the service's observability component (or any existing one) owns it.
import { createHash } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import { Workbook } from "@pulumi/azure-native/applicationinsights/index.js";
import { ScheduledQueryRule } from "@pulumi/azure-native/monitor/index.js";
import {
  billingHealthAlertSpecs,
  billingHealthWorkbook,
  defaultBillingHealthSeverities,
  type BillingHealthSeverities,
  type BillingHealthThresholds,
} from "../specs/index.js";

export interface BillingHealthArgs {
  resourceGroupName: pulumi.Input<string>;
  location?: pulumi.Input<string>;
  /** The environment (stack) name: in the workbook's title and its stable id. Plain: the id derives from it. */
  environment: string;
  /** The Application Insights component the consumers export to (its ARM id). */
  applicationInsightsId: pulumi.Input<string>;
  /** The Service Bus namespace, for the broker's panel. */
  namespaceId?: pulumi.Input<string>;
  /** Where alerts go (the namespace's action group); absent: alerts fire without notifying anyone. */
  actionGroupId?: pulumi.Input<string>;
  /** `oldestPendingSeconds` is required: the stack derives it from the queue's tuning. */
  thresholds: Pick<BillingHealthThresholds, "oldestPendingSeconds"> & Partial<BillingHealthThresholds>;
  severities?: Partial<BillingHealthSeverities>;
  tags?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

export class BillingHealth extends pulumi.ComponentResource {
  readonly alerts: ScheduledQueryRule[];
  readonly workbook: Workbook;

  constructor(name: string, args: BillingHealthArgs, opts?: pulumi.ComponentResourceOptions) {
    // Checked before anything registers: a refused component leaves nothing half-built.
    const thresholds = checkedThresholds(name, args.thresholds);
    super("chargeguard:infra:BillingHealth", name, {}, opts);
    const severities = { ...defaultBillingHealthSeverities, ...args.severities };

    this.alerts = billingHealthAlertSpecs(thresholds, severities).map(
      (spec) =>
        new ScheduledQueryRule(
          `${name}-${spec.key}`,
          {
            resourceGroupName: args.resourceGroupName,
            ruleName: `${name}-${spec.key}`,
            ...(args.location === undefined ? {} : { location: args.location }),
            description: spec.description,
            displayName: `chargeguard ${spec.key} (${args.environment})`,
            enabled: true,
            severity: spec.severity,
            scopes: [args.applicationInsightsId],
            evaluationFrequency: "PT5M",
            windowSize: spec.windowSize,
            autoMitigate: true,
            criteria: {
              allOf: [
                {
                  query: spec.query,
                  timeAggregation: "Maximum",
                  metricMeasureColumn: "value",
                  operator: "GreaterThan",
                  threshold: spec.threshold,
                  dimensions: spec.dimensions.map((dimension) => ({ name: dimension, operator: "Include", values: ["*"] })),
                  failingPeriods: { numberOfEvaluationPeriods: 1, minFailingPeriodsToAlert: 1 },
                },
              ],
            },
            actions: { actionGroups: args.actionGroupId === undefined ? [] : [args.actionGroupId] },
            ...(args.tags === undefined ? {} : { tags: args.tags }),
          },
          { parent: this },
        ),
    );

    const serializedData = pulumi
      .output(args.namespaceId)
      .apply((namespaceId) => JSON.stringify(billingHealthWorkbook({ environment: args.environment, ...(namespaceId === undefined ? {} : { namespaceId }) })));
    this.workbook = new Workbook(
      `${name}-workbook`,
      {
        resourceGroupName: args.resourceGroupName,
        // A workbook's name is a GUID: derived from the environment, so each `pulumi up` updates the same one.
        resourceName: stableGuid(`chargeguard-billing-health/${args.environment}/${name}`),
        ...(args.location === undefined ? {} : { location: args.location }),
        kind: "shared",
        category: "workbook",
        displayName: `Billing health (${args.environment})`,
        sourceId: args.applicationInsightsId,
        serializedData,
        ...(args.tags === undefined ? {} : { tags: args.tags }),
      },
      { parent: this },
    );
    this.registerOutputs({ alertIds: this.alerts.map((alert) => alert.id), workbookId: this.workbook.id });
  }
}

function checkedThresholds(name: string, given: BillingHealthArgs["thresholds"]): BillingHealthThresholds {
  const thresholds: BillingHealthThresholds = { unknownOutcomes: 5, spendUtilization: 0.9, ...given };
  if (!Number.isFinite(thresholds.oldestPendingSeconds) || thresholds.oldestPendingSeconds <= 0) {
    throw new RangeError(`BillingHealth ${name}: thresholds.oldestPendingSeconds must be a positive number, got ${thresholds.oldestPendingSeconds}`);
  }
  if (!(thresholds.spendUtilization > 0 && thresholds.spendUtilization <= 1)) {
    throw new RangeError(`BillingHealth ${name}: thresholds.spendUtilization must be in (0, 1], got ${thresholds.spendUtilization}`);
  }
  if (!Number.isSafeInteger(thresholds.unknownOutcomes) || thresholds.unknownOutcomes < 0) {
    throw new RangeError(`BillingHealth ${name}: thresholds.unknownOutcomes must be a whole number, got ${thresholds.unknownOutcomes}`);
  }
  return thresholds;
}

/** A name-based GUID (version 5 layout over SHA-1), stable for the same input. */
export function stableGuid(seed: string): string {
  const bytes = createHash("sha1").update(seed).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
