// A billing namespace's alerting: the action group every queue alert notifies (only when there are receivers) and
// the log alert on *new* dead letters, read from the namespace's diagnostics in Log Analytics.
import * as pulumi from "@pulumi/pulumi";
import { ActionGroup, ScheduledQueryRule, type DiagnosticSetting } from "@pulumi/azure-native/monitor/index.js";
import { defaultSeverities, NEW_DEAD_LETTERS_COLUMN, newDeadLettersQuery } from "../alert-specs.js";
import type { BillingAlertReceivers } from "./alert-receivers.js";

export interface NamespaceAlertsArgs {
  /** The component's resource name; children are named `<name>-billing-alerts` and `<name>-new-dead-letters`. */
  name: string;
  resourceGroupName: pulumi.Input<string>;
  location?: pulumi.Input<string> | undefined;
  namespaceName: pulumi.Output<string>;
  namespaceId: pulumi.Output<string>;
  tags?: pulumi.Input<Record<string, pulumi.Input<string>>> | undefined;
}

/** The shared action group; no receivers, no action group. */
export function billingActionGroup(parent: pulumi.Resource, args: NamespaceAlertsArgs, receivers: BillingAlertReceivers | undefined): ActionGroup | undefined {
  const emails = receivers?.emails ?? [];
  const webhooks = receivers?.webhooks ?? [];
  if (emails.length === 0 && webhooks.length === 0) return undefined;
  return new ActionGroup(
    `${args.name}-billing-alerts`,
    {
      resourceGroupName: args.resourceGroupName,
      actionGroupName: pulumi.interpolate`${args.namespaceName}-billing-alerts`,
      groupShortName: receivers?.shortName ?? "billing",
      location: "global",
      enabled: true,
      emailReceivers: emails.map((emailAddress, index) => ({
        name: `email-${index + 1}`,
        emailAddress,
        useCommonAlertSchema: true,
      })),
      webhookReceivers: webhooks.map((hook) => ({ name: hook.name, serviceUri: hook.url, useCommonAlertSchema: true })),
      tags: args.tags,
    },
    { parent },
  );
}

export interface NewDeadLettersArgs {
  workspaceId: pulumi.Input<string>;
  diagnostics: DiagnosticSetting;
  severity?: number | undefined;
  actionGroupId?: pulumi.Output<string> | undefined;
}

/** Fires when the namespace's dead-letter count rose since the minute before: a customer may not have been charged. */
export function newDeadLettersAlert(parent: pulumi.Resource, args: NamespaceAlertsArgs, alert: NewDeadLettersArgs): ScheduledQueryRule {
  return new ScheduledQueryRule(
    `${args.name}-new-dead-letters`,
    {
      resourceGroupName: args.resourceGroupName,
      ruleName: pulumi.interpolate`${args.namespaceName}-new-dead-letters`,
      location: args.location,
      kind: "LogAlert",
      description: "New billing events were dead-lettered in this namespace since the last minute: a customer may not have been charged. Find the queue with its dead-lettered alert or chargeguard dlq peek.",
      enabled: true,
      severity: alert.severity ?? defaultSeverities.deadLettered,
      scopes: [alert.workspaceId],
      evaluationFrequency: "PT5M",
      // Twice the frequency: every minute-to-minute rise falls inside some window (prev() has no row before a window's first).
      windowSize: "PT10M",
      autoMitigate: true,
      criteria: {
        allOf: [
          {
            query: args.namespaceId.apply(newDeadLettersQuery),
            timeAggregation: "Total",
            metricMeasureColumn: NEW_DEAD_LETTERS_COLUMN,
            operator: "GreaterThan",
            threshold: 0,
            failingPeriods: { numberOfEvaluationPeriods: 1, minFailingPeriodsToAlert: 1 },
          },
        ],
      },
      actions: { actionGroups: alert.actionGroupId ? [alert.actionGroupId] : [] },
      tags: args.tags,
    },
    { parent, dependsOn: [alert.diagnostics] },
  );
}
