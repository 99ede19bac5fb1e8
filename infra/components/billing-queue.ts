// A Service Bus queue safe for Stripe billing: every timing number comes from tuneQueue, expired events are
// dead-lettered (never dropped), duplicate detection where the tier has it, one metric alert per failure mode, and
// least-privilege access. `consumer` is the half of the tuning the consumer must use (renewal deadline, Stripe
// timeout and retries), exported so the scaffolded consumer and the lint rule read the same numbers.
import * as pulumi from "@pulumi/pulumi";
import { RoleAssignment } from "@pulumi/azure-native/authorization/index.js";
import { MetricAlert } from "@pulumi/azure-native/monitor/index.js";
import { Queue, QueueAuthorizationRule } from "@pulumi/azure-native/servicebus/index.js";
import {
  consumerQueueRights,
  operatorQueueRights,
  producerQueueRights,
  roleAssignmentName,
  roleDefinitionId,
  roleGuidOf,
  type QueueRights,
} from "../access.js";
import {
  DEFAULT_BACKLOG_THRESHOLD,
  defaultSeverities,
  METRIC_NAMESPACE,
  queueAlertSpecs,
  type AlertSeverities,
} from "../alert-specs.js";
import { encodeQueueMetadata } from "../queue-metadata.js";
import { tuneQueue, type ConsumerSettings, type LatencyBudget, type QueueTuning } from "../../tuning/index.js";
import type { BillingNamespace } from "./billing-namespace.js";

export type PrincipalType = "ServicePrincipal" | "User" | "Group";

export interface BillingQueueArgs {
  namespace: BillingNamespace;
  /** Plain, not an Input: alert dimensions and the policy pack must read it at preview time. */
  queueName: string;
  /** The latency budget; the queue and consumer numbers are computed from it (tuneQueue). */
  budget: LatencyBudget;
  /** Entra object id of the consumer's identity: gets consumerQueueRights' roles (Receiver + Sender) on this queue only. */
  consumerPrincipalId?: pulumi.Input<string>;
  /** Entra object id of the producer's identity: gets "Azure Service Bus Data Sender" on this queue only. */
  producerPrincipalId?: pulumi.Input<string>;
  /** Default "ServicePrincipal" (managed identities, app registrations); Azure refuses a mismatched type. */
  consumerPrincipalType?: PrincipalType;
  producerPrincipalType?: PrincipalType;
  /** Entra object ids of operators: what `chargeguard dlq peek|resubmit` needs (operatorQueueRights) on this queue only. */
  operatorPrincipalIds?: pulumi.Input<string>[];
  /** Default "Group" (an on-call group); Azure refuses a mismatched type. */
  operatorPrincipalType?: PrincipalType;
  alerts?: { severities?: Partial<AlertSeverities>; backlogThreshold?: number; retryBacklogThreshold?: number };
}

/** One line per grant, for plans and reviews: who may do what on this queue. */
export interface AccessGrant {
  kind: "role" | "sasRule";
  /** e.g. "Azure Service Bus Data Receiver" or "Listen". */
  right: string;
  /** Principal id (role) or rule name (sasRule). */
  holder: string;
}

export class BillingQueue extends pulumi.ComponentResource {
  readonly queue: Queue;
  readonly queueName: string;
  readonly tuning: QueueTuning;
  /** The settings the consumer must run with. */
  readonly consumer: ConsumerSettings;
  readonly alerts: MetricAlert[];
  readonly roleAssignments: RoleAssignment[] = [];
  readonly authorizationRules: QueueAuthorizationRule[] = [];
  readonly access: AccessGrant[] = [];
  /** Resolves once every child is registered (ids of alerts and access resources). */
  readonly childIds: pulumi.Output<string[]>;

  constructor(name: string, args: BillingQueueArgs, opts?: pulumi.ComponentResourceOptions) {
    super("chargeguard:infra:BillingQueue", name, {}, opts);
    const { namespace, queueName } = args;
    this.queueName = queueName;
    this.tuning = tuneQueue(args.budget);
    this.consumer = this.tuning.consumer;
    const duplicateDetection = namespace.sku !== "Basic";

    this.queue = new Queue(
      name,
      {
        resourceGroupName: namespace.resourceGroupName,
        namespaceName: namespace.namespaceName,
        queueName,
        lockDuration: this.tuning.lockDuration,
        maxDeliveryCount: this.tuning.maxDeliveryCount,
        defaultMessageTimeToLive: this.tuning.defaultMessageTimeToLive,
        deadLetteringOnMessageExpiration: true,
        requiresDuplicateDetection: duplicateDetection,
        ...(duplicateDetection
          ? { duplicateDetectionHistoryTimeWindow: this.tuning.duplicateDetectionHistoryTimeWindow }
          : {}),
        enableBatchedOperations: true,
        userMetadata: encodeQueueMetadata({ budget: args.budget, consumer: this.consumer }),
      },
      // A production namespace's delete lock covers its queues; `protect` stops Pulumi itself deleting one.
      { parent: this, protect: namespace.protect },
    );

    const severities = { ...defaultSeverities, ...args.alerts?.severities };
    const backlogThreshold = args.alerts?.backlogThreshold ?? DEFAULT_BACKLOG_THRESHOLD;
    this.alerts = queueAlertSpecs(queueName, severities, backlogThreshold, args.alerts?.retryBacklogThreshold).map(
      (spec) =>
        new MetricAlert(
          `${name}-${spec.key}`,
          {
            resourceGroupName: namespace.resourceGroupName,
            ruleName: pulumi.interpolate`${namespace.namespaceName}-${queueName}-${spec.key}`,
            description: spec.description,
            location: "global",
            enabled: true,
            severity: spec.severity,
            scopes: [namespace.namespaceId],
            evaluationFrequency: "PT1M",
            windowSize: spec.windowSize,
            autoMitigate: true,
            criteria: {
              odataType: "Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria",
              allOf: [
                {
                  criterionType: "StaticThresholdCriterion",
                  name: spec.key,
                  metricNamespace: METRIC_NAMESPACE,
                  metricName: spec.metricName,
                  operator: "GreaterThan",
                  threshold: spec.threshold,
                  timeAggregation: spec.timeAggregation,
                  dimensions: [{ name: "EntityName", operator: "Include", values: [queueName] }],
                },
              ],
            },
            actions: namespace.actionGroupId ? [{ actionGroupId: namespace.actionGroupId }] : [],
          },
          { parent: this, dependsOn: [this.queue] },
        ),
    );

    const parties: { party: string; principalId: pulumi.Input<string>; principalType: PrincipalType; rights: QueueRights }[] = [
      ...(args.consumerPrincipalId === undefined
        ? []
        : [{ party: "consumer", principalId: args.consumerPrincipalId, principalType: args.consumerPrincipalType ?? "ServicePrincipal", rights: consumerQueueRights }]),
      ...(args.producerPrincipalId === undefined
        ? []
        : [{ party: "producer", principalId: args.producerPrincipalId, principalType: args.producerPrincipalType ?? "ServicePrincipal", rights: producerQueueRights }]),
      ...(args.operatorPrincipalIds ?? []).map((principalId, index) => ({
        party: `operator-${index + 1}`,
        principalId,
        principalType: args.operatorPrincipalType ?? "Group",
        rights: operatorQueueRights,
      })),
    ];
    for (const { party, principalId, principalType, rights } of parties) {
      for (const role of rights.roles) {
        const roleGuid = roleGuidOf[role];
        const suffix = role.replace("Azure Service Bus Data ", "").toLowerCase();
        this.roleAssignments.push(
          new RoleAssignment(
            `${name}-${party}-${suffix}`,
            {
              roleAssignmentName: pulumi.all([this.queue.id, principalId]).apply(([scope, principal]) => roleAssignmentName(scope, principal, roleGuid)),
              principalId,
              principalType,
              scope: this.queue.id,
              roleDefinitionId: this.queue.id.apply((id) => roleDefinitionId(id, roleGuid)),
              description: `chargeguard: ${party} of billing queue ${queueName} (${rights.because})`,
            },
            // A new name cannot be created beside an assignment of the same principal, role and scope (Azure
            // refuses RoleAssignmentExists), so a replacement deletes first.
            { parent: this, deleteBeforeReplace: true },
          ),
        );
        this.access.push({ kind: "role", right: role, holder: typeof principalId === "string" ? principalId : `${party} principal` });
      }
    }

    if (namespace.localAuthEnabled) {
      for (const [party, rights] of [["consumer", consumerQueueRights], ["producer", producerQueueRights]] as const) {
        const ruleName = `${queueName}-${party}`;
        this.authorizationRules.push(
          new QueueAuthorizationRule(
            `${name}-${party}`,
            {
              resourceGroupName: namespace.resourceGroupName,
              namespaceName: namespace.namespaceName,
              queueName: this.queue.name,
              authorizationRuleName: ruleName,
              rights: [...rights.sasRights],
            },
            { parent: this },
          ),
        );
        this.access.push({ kind: "sasRule", right: rights.sasRights.join("+"), holder: ruleName });
      }
    }

    this.childIds = pulumi
      .all([...this.alerts, ...this.roleAssignments, ...this.authorizationRules].map((child) => child.id))
      .apply((ids) => ids.map(String));

    this.registerOutputs({
      queueName: this.queueName,
      queueId: this.queue.id,
      consumer: this.consumer,
      lockDuration: this.tuning.lockDuration,
      maxDeliveryCount: this.tuning.maxDeliveryCount,
      alertIds: this.alerts.map((alert) => alert.id),
      access: this.access,
    });
  }
}
