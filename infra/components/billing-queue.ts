// A Service Bus queue safe for Stripe billing: every timing number comes from tuneQueue, expired events are
// dead-lettered (never dropped), duplicate detection where the tier has it, one metric alert per failure mode, and
// least-privilege access. `consumer` is the half of the tuning the consumer must use (renewal deadline, Stripe
// timeout and retries), exported so the scaffolded consumer and the lint rule read the same numbers.
import * as pulumi from "@pulumi/pulumi";
import type { RoleAssignment } from "@pulumi/azure-native/authorization/index.js";
import type { MetricAlert } from "@pulumi/azure-native/monitor/index.js";
import { Queue, type QueueAuthorizationRule } from "@pulumi/azure-native/servicebus/index.js";
import { type AlertSeverities, encodeQueueMetadata } from "../specs/index.js";
import { tuneQueue, type ConsumerSettings, type LatencyBudget, type QueueTuning } from "../../tuning/index.js";
import type { BillingNamespace } from "./billing-namespace.js";
import { grantQueueAccess, type AccessGrant, type QueueParties } from "./queue-access.js";
import { queueAlerts } from "./queue-alerts.js";

export type { AccessGrant, PrincipalType } from "./queue-access.js";

/** The principal fields (consumer, producer, operators) are QueueParties'. */
export interface BillingQueueArgs extends QueueParties {
  namespace: BillingNamespace;
  /** Plain, not an Input: alert dimensions and the policy pack must read it at preview time. */
  queueName: string;
  /** The latency budget; the queue and consumer numbers are computed from it (tuneQueue). */
  budget: LatencyBudget;
  alerts?: { severities?: Partial<AlertSeverities>; backlogThreshold?: number; retryBacklogThreshold?: number };
}

export class BillingQueue extends pulumi.ComponentResource {
  readonly queue: Queue;
  readonly queueName: string;
  readonly tuning: QueueTuning;
  /** The settings the consumer must run with. */
  readonly consumer: ConsumerSettings;
  readonly alerts: MetricAlert[];
  readonly roleAssignments: RoleAssignment[];
  readonly authorizationRules: QueueAuthorizationRule[];
  readonly access: AccessGrant[];
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

    this.alerts = queueAlerts(this, { name, namespace, queueName, queue: this.queue, alerts: args.alerts });
    const access = grantQueueAccess(this, name, namespace, queueName, this.queue, args);
    this.roleAssignments = access.roleAssignments;
    this.authorizationRules = access.authorizationRules;
    this.access = access.access;

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
