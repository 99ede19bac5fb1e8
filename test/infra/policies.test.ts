// The policies called the way the Pulumi policy engine calls them, with hand-built arguments (never a PolicyPack:
// constructing one starts a gRPC server and keeps the process alive).
import type { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { describe, expect, it } from "vitest";
import { resourceArgs, stackArgs, urnOf, type PolicyTarget } from "../../infra/plan/policy-args.js";
import {
  billingPolicies,
  dataRolesAtQueueScope,
  deadLetterAlertPerQueue,
  namespaceLocalAuthInProduction,
  namespaceMinimumTls,
  noManageRules,
  queueDeadLetterOnExpiry,
  queueLockDuration,
  queueMaxDeliveryCount,
  types,
} from "../../infra/policy/policies.js";
import { builtInRoles, roleGuidOf, encodeQueueMetadata } from "../../infra/specs/index.js";
import { consumerQueueRights, tuneQueue } from "../../tuning/index.js";

const NS_ID = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ServiceBus/namespaces/sb-billing";

function target(type: string, name: string, props: Record<string, unknown>, stack = "dev"): PolicyTarget {
  return { type, name, urn: urnOf(stack, "chargeguard", type, name), inputs: props, outputs: props };
}

async function resourceViolations(policy: ResourceValidationPolicy, subject: PolicyTarget, config: object = {}): Promise<string[]> {
  const messages: string[] = [];
  for (const validate of [policy.validateResource ?? []].flat()) {
    await validate(resourceArgs(subject, config), (message) => messages.push(message));
  }
  return messages;
}

async function stackViolations(policy: StackValidationPolicy, subjects: PolicyTarget[]): Promise<{ message: string; urn?: string }[]> {
  const found: { message: string; urn?: string }[] = [];
  await policy.validateStack(stackArgs(subjects), (message, urn) => found.push(urn === undefined ? { message } : { message, urn }));
  return found;
}

const budget = { stripe: { timeoutMs: 30_000, maxNetworkRetries: 2 }, processingMs: 2000 };
const billingQueue = (props: Record<string, unknown> = {}) =>
  target(types.queue, "usage-billing", {
    queueName: "usage-billing",
    namespaceName: "sb-billing",
    lockDuration: "PT2M",
    maxDeliveryCount: 10,
    deadLetteringOnMessageExpiration: true,
    userMetadata: encodeQueueMetadata({ budget, consumer: tuneQueue(budget).consumer }),
    ...props,
  });

describe("billing-queue-lock-duration", () => {
  it("passes a tuned queue and ignores other resource types", async () => {
    expect(await resourceViolations(queueLockDuration, billingQueue())).toEqual([]);
    expect(await resourceViolations(queueLockDuration, target(types.namespace, "ns", { lockDuration: "P5M" }))).toEqual([]);
  });

  it("refuses P5M and locks outside 5 s..5 min", async () => {
    expect(await resourceViolations(queueLockDuration, billingQueue({ lockDuration: "P5M" }))).toEqual([
      'queue usage-billing: lockDuration "P5M" means months (a month has no fixed length): for minutes write "PT5M" (the T starts the time part)',
    ]);
    expect(await resourceViolations(queueLockDuration, billingQueue({ lockDuration: "PT10M" }))).toEqual([
      "queue usage-billing: lockDuration PT10M is outside Service Bus's 5 s..5 min (PT5S..PT5M)",
    ]);
    expect(await resourceViolations(queueLockDuration, billingQueue({ lockDuration: "PT2S" }))).toHaveLength(1);
  });

  it("refuses a lock that no longer covers the queue's recorded budget", async () => {
    const [message] = await resourceViolations(queueLockDuration, billingQueue({ lockDuration: "PT1M" }));
    expect(message).toBe(
      "queue usage-billing: lock 60 s is shorter than the delivery budget 103.5 s (Stripe worst case 91.5 s + processing + margin) and the consumer does not renew locks: lengthen the lock or enable renewal",
    );
  });

  it("accepts a short lock when the recorded consumer renews long enough", async () => {
    const renewing = { ...budget, lockDuration: "PT30S" };
    const consumer = tuneQueue(renewing).consumer;
    const queue = billingQueue({ lockDuration: "PT30S", userMetadata: encodeQueueMetadata({ budget: renewing, consumer }) });
    expect(await resourceViolations(queueLockDuration, queue)).toEqual([]);
    const tooShort = encodeQueueMetadata({ budget: renewing, consumer: { ...consumer, maxAutoLockRenewalDurationInMs: 100_000 } });
    expect(await resourceViolations(queueLockDuration, billingQueue({ lockDuration: "PT30S", userMetadata: tooShort }))).toEqual([
      expect.stringContaining("set maxAutoLockRenewalDurationInMs to at least 183000"),
    ]);
  });

  it("requires a billing queue to set its lock, but leaves foreign queues on Azure's default", async () => {
    expect(await resourceViolations(queueLockDuration, billingQueue({ lockDuration: undefined }))).toEqual([
      "queue usage-billing: lockDuration is not set, so Azure's default PT1M applies: set the tuned lock",
    ]);
    expect(await resourceViolations(queueLockDuration, target(types.queue, "other", { queueName: "other" }))).toEqual([]);
  });
});

describe("billing-queue-max-delivery-count", () => {
  it("keeps MaxDeliveryCount within 3..50", async () => {
    expect(await resourceViolations(queueMaxDeliveryCount, billingQueue())).toEqual([]);
    expect(await resourceViolations(queueMaxDeliveryCount, billingQueue({ maxDeliveryCount: undefined }))).toEqual([]);
    expect(await resourceViolations(queueMaxDeliveryCount, billingQueue({ maxDeliveryCount: 1 }))).toEqual([
      "queue usage-billing: maxDeliveryCount 1 is outside 3..50",
    ]);
    expect(await resourceViolations(queueMaxDeliveryCount, billingQueue({ maxDeliveryCount: 2000 }))).toHaveLength(1);
  });
});

describe("billing-queue-dead-letter-on-expiry", () => {
  it("requires expired events to be dead-lettered", async () => {
    expect(await resourceViolations(queueDeadLetterOnExpiry, billingQueue())).toEqual([]);
    for (const value of [false, undefined]) {
      expect(await resourceViolations(queueDeadLetterOnExpiry, billingQueue({ deadLetteringOnMessageExpiration: value }))).toEqual([
        "queue usage-billing: set deadLetteringOnMessageExpiration: true, or expired billing events vanish",
      ]);
    }
  });
});

describe("servicebus-minimum-tls-1-2", () => {
  it("requires TLS 1.2 or 1.3, explicitly", async () => {
    const ns = (props: Record<string, unknown>) => target(types.namespace, "sb-billing", { namespaceName: "sb-billing", ...props });
    expect(await resourceViolations(namespaceMinimumTls, ns({ minimumTlsVersion: "1.2" }))).toEqual([]);
    expect(await resourceViolations(namespaceMinimumTls, ns({ minimumTlsVersion: "1.3" }))).toEqual([]);
    expect(await resourceViolations(namespaceMinimumTls, ns({ minimumTlsVersion: "1.0" }))).toEqual([
      'namespace sb-billing: minimumTlsVersion is "1.0": set "1.2" or "1.3"',
    ]);
    expect(await resourceViolations(namespaceMinimumTls, ns({}))).toHaveLength(1);
  });
});

describe("servicebus-local-auth-disabled-in-prod", () => {
  const ns = (stack: string, disableLocalAuth: boolean | undefined) =>
    target(types.namespace, "sb-billing", { namespaceName: "sb-billing", disableLocalAuth }, stack);

  it("requires Entra-only namespaces in production stacks, read from the URN", async () => {
    expect(await resourceViolations(namespaceLocalAuthInProduction, ns("prod", true))).toEqual([]);
    expect(await resourceViolations(namespaceLocalAuthInProduction, ns("dev", false))).toEqual([]);
    expect(await resourceViolations(namespaceLocalAuthInProduction, ns("prod", false))).toEqual([
      "namespace sb-billing: stack prod is production: set disableLocalAuth: true (Entra ID only)",
    ]);
    expect(await resourceViolations(namespaceLocalAuthInProduction, ns("production", undefined))).toHaveLength(1);
  });

  it("takes the production stack names from policy config", async () => {
    const config = { productionStacks: ["live"] };
    expect(await resourceViolations(namespaceLocalAuthInProduction, ns("live", false), config)).toHaveLength(1);
    expect(await resourceViolations(namespaceLocalAuthInProduction, ns("prod", false), config)).toEqual([]);
  });
});

describe("servicebus-no-manage-rule", () => {
  it("refuses Manage rights on namespace and queue rules, allows Listen-only and Send-only", async () => {
    const rule = (type: string, rights: string[]) => target(type, "rule", { authorizationRuleName: "app", rights });
    expect(await resourceViolations(noManageRules, rule(types.namespaceRule, ["Listen", "Send", "Manage"]))).toEqual([
      "namespace rule app grants Manage on the whole namespace: give applications queue-level Listen-only or Send-only rules, or Entra roles",
    ]);
    expect(await resourceViolations(noManageRules, rule(types.queueRule, ["Manage", "Listen", "Send"]))).toEqual([
      "queue rule app grants Manage: consumers need Listen and Send only, producers Send only",
    ]);
    expect(await resourceViolations(noManageRules, rule(types.queueRule, ["Listen"]))).toEqual([]);
    expect(await resourceViolations(noManageRules, rule(types.namespaceRule, ["Send"]))).toEqual([]);
  });
});

describe("servicebus-data-roles-queue-scoped", () => {
  const QUEUE_ID = `${NS_ID}/queues/usage-billing`;
  const assignment = (roleGuid: string, scope: unknown, type: string = types.roleAssignment) =>
    target(type, "usage-billing-consumer", {
      roleAssignmentName: "6f0e4bde-0000-5000-8000-000000000000",
      principalId: "00000000-0000-0000-0000-000000000001",
      roleDefinitionId: `/subscriptions/s/providers/Microsoft.Authorization/roleDefinitions/${roleGuid}`,
      scope,
    });

  it("accepts the consumer's rights (Receiver and Sender) on its queue", async () => {
    for (const role of consumerQueueRights.roles) {
      expect(await resourceViolations(dataRolesAtQueueScope, assignment(roleGuidOf[role], QUEUE_ID))).toEqual([]);
    }
  });

  it("refuses a data role on the namespace or wider, also under a versioned type token", async () => {
    expect(await resourceViolations(dataRolesAtQueueScope, assignment(builtInRoles.serviceBusDataSender, NS_ID))).toEqual([
      `role assignment 6f0e4bde-0000-5000-8000-000000000000 grants Azure Service Bus Data Sender on the whole namespace (${NS_ID}): grant it on the one queue the identity uses`,
    ]);
    expect(await resourceViolations(dataRolesAtQueueScope, assignment(builtInRoles.serviceBusDataReceiver, "/subscriptions/s/resourceGroups/rg"))).toEqual([
      expect.stringContaining("grants Azure Service Bus Data Receiver on a scope wider than a namespace"),
    ]);
    const versioned = assignment(builtInRoles.serviceBusDataReceiver, NS_ID, "azure-native:authorization/v20220401:RoleAssignment");
    expect(await resourceViolations(dataRolesAtQueueScope, versioned)).toHaveLength(1);
  });

  it("refuses Data Owner on a namespace (on a queue, consumer-scaler-manage-right checks who holds it), and leaves other roles and unknown scopes alone", async () => {
    expect(await resourceViolations(dataRolesAtQueueScope, assignment(builtInRoles.serviceBusDataOwner, QUEUE_ID))).toEqual([]);
    expect(await resourceViolations(dataRolesAtQueueScope, assignment(builtInRoles.serviceBusDataOwner, NS_ID))).toEqual([
      expect.stringContaining("grants Azure Service Bus Data Owner on the whole namespace"),
    ]);
    const reader = "acdd72a7-3385-48ef-bd42-f606fba81ae7";
    expect(await resourceViolations(dataRolesAtQueueScope, assignment(reader, NS_ID))).toEqual([]);
    expect(await resourceViolations(dataRolesAtQueueScope, assignment(builtInRoles.serviceBusDataSender, undefined))).toEqual([]);
  });
});

describe("billing-queue-dead-letter-alert", () => {
  const alert = (props: Record<string, unknown> = {}, values: string[] = ["usage-billing"], metricName = "DeadletteredMessages") =>
    target(types.metricAlert, "usage-billing-deadlettered", {
      enabled: true,
      scopes: [NS_ID],
      actions: [{ actionGroupId: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Insights/actionGroups/billing" }],
      criteria: {
        odataType: "Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria",
        allOf: [
          {
            criterionType: "StaticThresholdCriterion",
            name: "deadlettered",
            metricName,
            operator: "GreaterThan",
            threshold: 0,
            timeAggregation: "Maximum",
            dimensions: [{ name: "EntityName", operator: "Include", values }],
          },
        ],
      },
      ...props,
    });

  it("passes a queue with an enabled, notifying dead-letter alert on its name (or on every entity)", async () => {
    expect(await stackViolations(deadLetterAlertPerQueue, [billingQueue(), alert()])).toEqual([]);
    expect(await stackViolations(deadLetterAlertPerQueue, [billingQueue(), alert({}, ["*"])])).toEqual([]);
  });

  it("reports queues whose alert is missing, disabled, for another queue, metric or namespace", async () => {
    const queue = billingQueue();
    const missing = {
      message: "queue usage-billing has no enabled DeadletteredMessages alert with EntityName = usage-billing: dead-lettered billing events would go unnoticed",
      urn: queue.urn,
    };
    expect(await stackViolations(deadLetterAlertPerQueue, [queue])).toEqual([missing]);
    expect(await stackViolations(deadLetterAlertPerQueue, [queue, alert({ enabled: false })])).toEqual([missing]);
    expect(await stackViolations(deadLetterAlertPerQueue, [queue, alert({}, ["refunds"])])).toEqual([missing]);
    expect(await stackViolations(deadLetterAlertPerQueue, [queue, alert({}, ["usage-billing"], "ActiveMessages")])).toEqual([missing]);
    expect(await stackViolations(deadLetterAlertPerQueue, [queue, alert({ scopes: [`${NS_ID}-other`] })])).toEqual([missing]);
  });

  it("reports a dead-letter alert that tells nobody", async () => {
    expect(await stackViolations(deadLetterAlertPerQueue, [billingQueue(), alert({ actions: [] })])).toEqual([
      {
        message: "queue usage-billing: its dead-letter alert has no action group, so nobody is told: add e-mail or webhook receivers",
        urn: billingQueue().urn,
      },
    ]);
  });
});

describe("the policy set", () => {
  it("is all mandatory, uniquely named, and covers every rule of the issue", () => {
    expect(billingPolicies.map((p) => p.name)).toEqual([
      "billing-queue-lock-duration",
      "billing-queue-max-delivery-count",
      "billing-queue-dead-letter-on-expiry",
      "billing-queue-dead-letter-alert",
      "servicebus-minimum-tls-1-2",
      "servicebus-local-auth-disabled-in-prod",
      "servicebus-no-manage-rule",
      "servicebus-data-roles-queue-scoped",
      "servicebus-private-access",
      "diagnostics-dedicated-tables",
      "diagnostics-required-in-prod",
      "delete-lock-in-prod",
      "maintenance-window-open",
      "consumer-scale-rule-identity",
      "consumer-scaler-manage-right",
      "consumer-scaler-identity-platform-only",
      "creation-order",
      "postgres-operations-serial",
      "consumer-probes",
      "service-baseline-alerts",
      "alerts-quiet-at-rest",
      "zone-redundant-replicas",
      "alerts-can-fire",
      "nightly-audit",
      "consumer-egress-path",
      "egress-zone-explicit",
      "logs-sent-once",
      "consumer-app-bounds",
      "guard-database",
      "keyvault-protection",
      "no-plain-secrets",
      "vault-access-per-secret",
      "database-retained",
      "appinsights-local-auth-disabled",
      "consumer-telemetry-publisher",
    ]);
    // Mandatory, but for the reminders that a maintenance window is open and that a restore's retain is still on.
    const reminders = ["maintenance-window-open", "database-retained"];
    expect(new Set(billingPolicies.filter((p) => !reminders.includes(p.name)).map((p) => p.enforcementLevel))).toEqual(new Set(["mandatory"]));
    expect(billingPolicies.filter((p) => reminders.includes(p.name)).map((p) => p.enforcementLevel)).toEqual(["advisory", "advisory"]);
  });
});
