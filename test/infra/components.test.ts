// The components and the stack program under Pulumi mocks: the dev and prod stacks as committed, a deliberately
// bad config, and the components on their own (Basic tier, no receivers).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { builtInRoles, roleAssignmentName, roleGuidOf, uuidV5, decodeQueueMetadata } from "../../infra/specs/index.js";
import { BillingNamespace } from "../../infra/components/billing-namespace.js";
import { BillingQueue } from "../../infra/components/billing-queue.js";
import { azureMocks, type MockedResource } from "../../infra/plan/azure-mocks.js";
import { planStack, type Plan } from "../../infra/plan/run-plan.js";
import { StackConfigError } from "../../infra/config/index.js";
import { consumerQueueRights, tuneQueue } from "../../tuning/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "chargeguard-components-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const ofType = (plan: Plan, type: string) => plan.mocked.filter((r) => r.custom && r.type === `azure-native:${type}`);
const only = <T>(items: T[]): T => {
  expect(items).toHaveLength(1);
  return items[0] as T;
};
interface Criterion {
  metricName: string;
  timeAggregation: string;
  threshold: number;
  metricNamespace: string;
  dimensions: { name: string; operator: string; values: unknown[] }[];
}
const criterionOf = (alert: MockedResource) => only((alert.inputs.criteria as { allOf: Criterion[] }).allOf);
const alertsOf = (plan: Plan, queueName: string) =>
  ofType(plan, "monitor:MetricAlert").filter((alert) => criterionOf(alert).dimensions?.[0]?.values.includes(queueName));

describe("the dev stack under mocks", () => {
  let plan: Plan;
  beforeAll(async () => {
    plan = await planStack({ stack: "dev", cwd: root });
  });

  it("watches the consumers' billing metrics: a workbook and log alerts on the stack's Application Insights", () => {
    const workbook = only(ofType(plan, "applicationinsights:Workbook"));
    expect(String(workbook.inputs.serializedData)).toContain("chargeguard.billing.outcomes");
    const appInsights = only(ofType(plan, "applicationinsights:Component"));
    const billingAlerts = ofType(plan, "monitor:ScheduledQueryRule").filter((rule) => String(rule.name).startsWith("billing-health-"));
    expect(billingAlerts.length).toBeGreaterThanOrEqual(4);
    for (const rule of billingAlerts) expect(rule.inputs.scopes).toEqual([appInsights.id]);
  });

  it("builds a Standard namespace with TLS 1.2 and local auth on, as dev asks", () => {
    const ns = only(ofType(plan, "servicebus:Namespace"));
    expect(ns.inputs).toMatchObject({
      namespaceName: "sb-billing-dev",
      resourceGroupName: "rg-billing-dev",
      location: "westeurope",
      sku: { name: "Standard", tier: "Standard" },
      minimumTlsVersion: "1.2",
      disableLocalAuth: false,
      publicNetworkAccess: "Enabled",
    });
    expect(ns.inputs).not.toHaveProperty("zoneRedundant");
  });

  it("configures the queue from tuneQueue, with dead-lettering on expiry and duplicate detection", () => {
    const queue = only(ofType(plan, "servicebus:Queue"));
    // Tuned for the dev app that consumes it: 4 messages in flight for 2 Stripe slots.
    const tuning = tuneQueue({
      stripe: { timeoutMs: 30_000, maxNetworkRetries: 2, threeDsP99Ms: 0 },
      processingMs: 2000,
      maxDeliveryCount: 10,
      concurrency: { maxConcurrentCalls: 4, maxConcurrentStripeCalls: 2 },
    });
    expect(tuning.lockDuration).toBe("PT3M30S");
    expect(queue.inputs).toMatchObject({
      queueName: "usage-billing",
      namespaceName: "sb-billing-dev",
      lockDuration: tuning.lockDuration,
      maxDeliveryCount: 10,
      defaultMessageTimeToLive: tuning.defaultMessageTimeToLive,
      deadLetteringOnMessageExpiration: true,
      requiresDuplicateDetection: true,
      duplicateDetectionHistoryTimeWindow: tuning.duplicateDetectionHistoryTimeWindow,
    });
    expect(decodeQueueMetadata(queue.inputs.userMetadata)?.consumer).toEqual(tuning.consumer);
    expect(plan.report.queues).toEqual([
      { name: "usage-billing", flow: "payment-intent", stripeCallsPerMessage: 1, lockDuration: "PT3M30S", maxDeliveryCount: 10, worstCaseStripeMs: 91_500, consumer: tuning.consumer },
    ]);
  });

  it("alerts per queue on the namespace with EntityName = the queue and the right aggregation per metric", () => {
    const ns = only(ofType(plan, "servicebus:Namespace"));
    const actionGroup = only(ofType(plan, "monitor:ActionGroup"));
    const alerts = alertsOf(plan, "usage-billing");
    const byMetric = Object.fromEntries(alerts.map((alert) => [criterionOf(alert).metricName, alert]));
    expect(Object.keys(byMetric).sort()).toEqual([
      "AbandonMessage",
      "ActiveMessages",
      "DeadletteredMessages",
      "ScheduledMessages",
      "ServerErrors",
      "ThrottledRequests",
      "UserErrors",
    ]);
    const aggregation = (metric: string) => byMetric[metric] && criterionOf(byMetric[metric]).timeAggregation;
    expect(aggregation("DeadletteredMessages")).toBe("Maximum");
    expect(aggregation("ActiveMessages")).toBe("Average");
    expect(aggregation("ScheduledMessages")).toBe("Average");
    for (const metric of ["ThrottledRequests", "ServerErrors", "AbandonMessage", "UserErrors"]) expect(aggregation(metric), metric).toBe("Total");
    expect(criterionOf(byMetric.ActiveMessages as MockedResource).threshold).toBe(500);
    for (const alert of alerts) {
      expect(alert.inputs).toMatchObject({ location: "global", enabled: true, scopes: [ns.id], actions: [{ actionGroupId: actionGroup.id }] });
      expect(alert.inputs.criteria).toMatchObject({ odataType: "Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria" });
      expect(criterionOf(alert)).toMatchObject({
        metricNamespace: "Microsoft.ServiceBus/namespaces",
        dimensions: [{ name: "EntityName", operator: "Include", values: ["usage-billing"] }],
      });
    }
    expect(byMetric.DeadletteredMessages?.inputs.severity).toBe(2);
    expect(byMetric.ThrottledRequests?.inputs.severity).toBe(3);
    expect(actionGroup.inputs).toMatchObject({
      location: "global",
      groupShortName: "billing",
      emailReceivers: [{ emailAddress: "billing-oncall@example.com", name: "email-1", useCommonAlertSchema: true }],
    });
  });

  it("grants the consumer app's identity its rights (Receiver + Sender) on the queue only, under deterministic names, and a Listen+Send SAS rule", () => {
    const queue = only(ofType(plan, "servicebus:Queue"));
    const identity = only(ofType(plan, "managedidentity:UserAssignedIdentity").filter((r) => r.inputs.resourceName === "id-usage-billing-consumer"));
    const principal = String(identity.state.principalId);
    // The KEDA scaler's Data Owner on the queue is its own identity's (test/infra/scaler-policies.test.ts).
    const roles = ofType(plan, "authorization:RoleAssignment").filter((role) => role.inputs.scope === queue.id && !String(role.inputs.roleDefinitionId).endsWith(builtInRoles.serviceBusDataOwner));
    const subscription = String(queue.id).split("/resourceGroups/")[0] ?? "";
    const byRole = (a: MockedResource, b: MockedResource) => String(a.inputs.roleDefinitionId).localeCompare(String(b.inputs.roleDefinitionId));
    const expectedOrder = [...consumerQueueRights.roles].sort((a, b) => roleGuidOf[a].localeCompare(roleGuidOf[b]));
    expect(roles.sort(byRole).map((role) => role.inputs)).toEqual(
      expectedOrder.map((role) =>
        expect.objectContaining({
          principalId: principal,
          principalType: "ServicePrincipal",
          scope: queue.id,
          roleDefinitionId: `${subscription}/providers/Microsoft.Authorization/roleDefinitions/${roleGuidOf[role]}`,
          roleAssignmentName: roleAssignmentName(String(queue.id), principal, roleGuidOf[role]),
        }),
      ),
    );
    expect(consumerQueueRights.roles).toEqual(["Azure Service Bus Data Receiver", "Azure Service Bus Data Sender"]);
    const rules = ofType(plan, "servicebus:QueueAuthorizationRule")
      .map((rule) => rule.inputs)
      .sort((a, b) => String(a.authorizationRuleName).localeCompare(String(b.authorizationRuleName)));
    expect(rules).toEqual([
      expect.objectContaining({ queueName: "usage-billing", authorizationRuleName: "usage-billing-consumer", rights: [...consumerQueueRights.sasRights] }),
      expect.objectContaining({ queueName: "usage-billing", authorizationRuleName: "usage-billing-producer", rights: ["Send"] }),
    ]);
    expect(consumerQueueRights.sasRights).toEqual(["Listen", "Send"]);
    expect(ofType(plan, "servicebus:NamespaceAuthorizationRule")).toEqual([]);
  });

  it("passes every policy", () => {
    expect(plan.report.violations).toEqual([]);
  });
});

describe("the prod stack under mocks, planned in the same process after dev", () => {
  let plan: Plan;
  beforeAll(async () => {
    await planStack({ stack: "dev", cwd: root });
    plan = await planStack({ stack: "prod", cwd: root });
  });

  it("sees only its own resources", () => {
    expect(plan.report.stack).toBe("prod");
    expect(JSON.stringify(plan.report.resources)).not.toContain("sb-billing-dev");
    expect(plan.report.resources.map((r) => r.type).filter((t) => t.endsWith(":Queue"))).toHaveLength(2);
  });

  it("builds a zone-redundant Premium namespace, Entra ID only, private, with Dedicated diagnostics to the stack's workspace", () => {
    const ns = only(ofType(plan, "servicebus:Namespace"));
    expect(ns.inputs).toMatchObject({
      sku: { name: "Premium", tier: "Premium", capacity: 1 },
      zoneRedundant: true,
      disableLocalAuth: true,
      minimumTlsVersion: "1.2",
      publicNetworkAccess: "Disabled",
    });
    const workspace = only(ofType(plan, "operationalinsights:Workspace"));
    const diagnostics = only(ofType(plan, "monitor:DiagnosticSetting").filter((setting) => setting.inputs.resourceUri === ns.id));
    expect(diagnostics.inputs).toMatchObject({
      workspaceId: workspace.id,
      logAnalyticsDestinationType: "Dedicated",
      logs: [{ categoryGroup: "allLogs", enabled: true }],
      metrics: [{ category: "AllMetrics", enabled: true }],
    });
  });

  it("gives no SAS rules at all and queue-scoped roles to each consumer app's identity, the producer and the operators", () => {
    expect(ofType(plan, "servicebus:QueueAuthorizationRule")).toEqual([]);
    const queues = ofType(plan, "servicebus:Queue");
    const roles = ofType(plan, "authorization:RoleAssignment");
    const identities = ofType(plan, "managedidentity:UserAssignedIdentity");
    // The consumers' own and KEDA's, and the nightly audit's (it holds nothing on any queue).
    expect(identities.map((identity) => identity.inputs.resourceName).sort()).toEqual([
      "id-chargeguard-audit",
      "id-invoice-settlement-consumer",
      "id-invoice-settlement-consumer-scaler",
      "id-usage-billing-consumer",
      "id-usage-billing-consumer-scaler",
    ]);
    const receiver = builtInRoles.serviceBusDataReceiver;
    const sender = builtInRoles.serviceBusDataSender;
    for (const queue of queues) {
      const granted = roles
        .filter((role) => role.inputs.scope === queue.id)
        .map((role) => [String(role.inputs.roleDefinitionId).split("/").pop(), role.inputs.principalId, role.inputs.principalType]);
      const usage = queue.inputs.queueName === "usage-billing";
      const consumer = identities.find((identity) => identity.inputs.resourceName === `id-${String(queue.inputs.queueName)}-consumer`)?.state.principalId;
      const scaler = identities.find((identity) => identity.inputs.resourceName === `id-${String(queue.inputs.queueName)}-consumer-scaler`)?.state.principalId;
      const producer = "00000000-0000-0000-0000-000000000002";
      const operator = "00000000-0000-0000-0000-000000000004";
      expect(granted.sort()).toEqual(
        [
          [receiver, consumer, "ServicePrincipal"],
          [sender, consumer, "ServicePrincipal"],
          [sender, producer, "ServicePrincipal"],
          [builtInRoles.serviceBusDataOwner, scaler, "ServicePrincipal"],
          ...(usage ? [[receiver, operator, "Group"], [sender, operator, "Group"]] : []),
        ].sort(),
      );
    }
    const names = roles.map((role) => role.inputs.roleAssignmentName);
    expect(new Set(names).size).toBe(names.length);
    // Nothing at namespace scope.
    const ns = only(ofType(plan, "servicebus:Namespace"));
    expect(roles.filter((role) => role.inputs.scope === ns.id)).toEqual([]);
  });

  it("renews locks for the slow queue and alarms with stricter severities", () => {
    const invoice = plan.report.queues.find((q) => q.name === "invoice-settlement");
    expect(invoice?.lockDuration).toBe("PT5M");
    expect(invoice?.consumer.maxAutoLockRenewalDurationInMs).toBeGreaterThanOrEqual(2 * (invoice?.worstCaseStripeMs ?? Infinity));
    const deadLettered = alertsOf(plan, "invoice-settlement").find((a) => criterionOf(a).metricName === "DeadletteredMessages");
    expect(deadLettered?.inputs.severity).toBe(0);
    const actionGroup = only(ofType(plan, "monitor:ActionGroup"));
    expect(actionGroup.inputs).toMatchObject({
      groupShortName: "billingprod",
      // A webhook URL is always a secret (it usually carries a key): the receivers holding it are redacted.
      webhookReceivers: "[secret]",
    });
    expect(JSON.stringify(plan.report)).not.toContain("events.example.com");
    expect(plan.report.violations).toEqual([]);
  });
});

describe("deliberately bad configs", () => {
  it("stops before building anything, listing every problem, and leaves the next plan working", async () => {
    const file = join(scratch, "Pulumi.bad.yaml");
    writeFileSync(
      file,
      stringify({
        config: {
          "azure-native:location": "westeurope",
          "chargeguard:resourceGroupName": "rg-billing-bad",
          "chargeguard:namespace": { name: "sb-billing-bad", sku: "Free" },
          "chargeguard:queues": [{ name: "usage-billing", stripe: { timeoutMs: 30000, maxNetworkRetries: 2 }, lockDuration: "P5M" }],
        },
      }),
    );
    const error = await planStack({ configFile: file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StackConfigError);
    expect((error as StackConfigError).problems).toEqual([
      "chargeguard:namespace.sku: expected one of Basic, Standard, Premium",
      expect.stringContaining('chargeguard:queues[0] (usage-billing): lockDuration: "P5M" means months'),
    ]);
    expect((await planStack({ stack: "dev", cwd: root })).report.resources.length).toBeGreaterThan(0);
  });

  it("reports mandatory violations for a valid config that is unsafe in production", async () => {
    const file = join(scratch, "Pulumi.prod.yaml");
    writeFileSync(
      file,
      stringify({
        config: {
          "azure-native:location": "westeurope",
          "chargeguard:resourceGroupName": "rg-billing-prod",
          "chargeguard:namespace": { name: "sb-billing-prod", sku: "Standard", disableLocalAuth: false },
          "chargeguard:queues": [{ name: "usage-billing", stripe: { timeoutMs: 30000, maxNetworkRetries: 2 } }],
        },
      }),
    );
    const { report } = await planStack({ configFile: file });
    expect(report.stack).toBe("prod");
    expect(report.violations).toEqual([
      {
        policy: "billing-queue-dead-letter-alert",
        resource: "usage-billing",
        level: "mandatory",
        message: "queue usage-billing: its dead-letter alert has no action group, so nobody is told: add e-mail or webhook receivers",
      },
      {
        policy: "servicebus-local-auth-disabled-in-prod",
        resource: "sb-billing-prod",
        level: "mandatory",
        message: "namespace sb-billing-prod: stack prod is production: set disableLocalAuth: true (Entra ID only)",
      },
      {
        policy: "servicebus-private-access",
        resource: "sb-billing-prod",
        level: "mandatory",
        message: "namespace sb-billing-prod: production namespaces are reached only through a private endpoint: set publicNetworkAccess Disabled (Premium + chargeguard:network)",
      },
    ]);
  });
});

describe("the components on their own", () => {
  it("skips duplicate detection on Basic, exposes the consumer settings and needs no receivers", async () => {
    const mocked: MockedResource[] = [];
    await pulumi.runtime.setMocks(azureMocks((r) => mocked.push(r)), "chargeguard", "test", false);
    const namespace = new BillingNamespace("basic", { resourceGroupName: "rg", namespaceName: "sb-basic-test", sku: "Basic" });
    const budget = { stripe: { timeoutMs: 20_000, maxNetworkRetries: 1 }, maxDeliveryCount: 5 };
    const queue = new BillingQueue("events", { namespace, queueName: "events", budget, producerPrincipalId: "00000000-0000-0000-0000-00000000000a" });
    await new Promise((resolve) => queue.childIds.apply(resolve));

    expect(queue.consumer).toEqual(tuneQueue(budget).consumer);
    expect(queue.access).toEqual([{ kind: "role", right: "Azure Service Bus Data Sender", holder: "00000000-0000-0000-0000-00000000000a" }]);
    expect(namespace.actionGroup).toBeUndefined();
    const queueInputs = only(mocked.filter((r) => r.type === "azure-native:servicebus:Queue")).inputs;
    expect(queueInputs).toMatchObject({ requiresDuplicateDetection: false, maxDeliveryCount: 5 });
    expect(queueInputs).not.toHaveProperty("duplicateDetectionHistoryTimeWindow");
    const ns = only(mocked.filter((r) => r.type === "azure-native:servicebus:Namespace")).inputs;
    expect(ns).toMatchObject({ sku: { name: "Basic", tier: "Basic" }, disableLocalAuth: true, minimumTlsVersion: "1.2" });
    const alerts = mocked.filter((r) => r.type === "azure-native:monitor:MetricAlert");
    expect(alerts).toHaveLength(8);
    for (const alert of alerts) expect(alert.inputs.actions).toEqual([]);
    expect(mocked.map((r) => r.type)).toEqual(
      expect.arrayContaining(["chargeguard:infra:BillingNamespace", "chargeguard:infra:BillingQueue"]),
    );
  });

  it("names role assignments by a UUID v5 of scope, principal and role: the same every time, different per grant", async () => {
    expect(uuidV5("www.example.com", "6ba7b810-9dad-11d1-80b4-00c04fd430c8")).toBe("2ed6657d-e927-568b-95e1-2665a8aea6a2");
    const scope = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ServiceBus/namespaces/ns/queues/q";
    const name = roleAssignmentName(scope, "00000000-0000-0000-0000-00000000000a", builtInRoles.serviceBusDataSender);
    expect(name).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(roleAssignmentName(scope.toUpperCase(), "00000000-0000-0000-0000-00000000000A", builtInRoles.serviceBusDataSender)).toBe(name);
    expect(roleAssignmentName(scope, "00000000-0000-0000-0000-00000000000a", builtInRoles.serviceBusDataReceiver)).not.toBe(name);
    expect(roleAssignmentName(`${scope}2`, "00000000-0000-0000-0000-00000000000a", builtInRoles.serviceBusDataSender)).not.toBe(name);

    // One build under one mock session (a second setMocks while the first session's component outputs are still
    // registering races them). Each name must be the pure function of its own scope, principal and role: the same
    // on every deployment, different per grant.
    const mocked: MockedResource[] = [];
    await pulumi.runtime.setMocks(azureMocks((r) => mocked.push(r)), "chargeguard", "test", false);
    const namespace = new BillingNamespace("ops", { resourceGroupName: "rg", namespaceName: "sb-ops-test", sku: "Standard", disableLocalAuth: false });
    const queue = new BillingQueue("ops", {
      namespace,
      queueName: "ops",
      budget: { stripe: { timeoutMs: 20_000, maxNetworkRetries: 1 } },
      consumerPrincipalId: "00000000-0000-0000-0000-00000000000c",
      operatorPrincipalIds: ["00000000-0000-0000-0000-00000000000d", "00000000-0000-0000-0000-00000000000e"],
    });
    await new Promise((resolve) => queue.childIds.apply(resolve));
    const first = { queue, roles: mocked.filter((r) => r.type === "azure-native:authorization:RoleAssignment") };
    for (const role of first.roles) {
      const roleGuid = String(role.inputs.roleDefinitionId).split("/").pop() as string;
      expect(role.inputs.roleAssignmentName).toBe(roleAssignmentName(String(role.inputs.scope), String(role.inputs.principalId), roleGuid));
    }
    expect(new Set(first.roles.map((r) => r.inputs.roleAssignmentName)).size).toBe(first.roles.length);
    expect(first.roles.map((r) => [r.name, r.inputs.principalType]).sort()).toEqual([
      ["ops-consumer-receiver", "ServicePrincipal"],
      ["ops-consumer-sender", "ServicePrincipal"],
      ["ops-operator-1-receiver", "Group"],
      ["ops-operator-1-sender", "Group"],
      ["ops-operator-2-receiver", "Group"],
      ["ops-operator-2-sender", "Group"],
    ]);
    expect(first.queue.access.filter((grant) => grant.kind === "sasRule").sort((a, b) => a.holder.localeCompare(b.holder))).toEqual([
      { kind: "sasRule", right: "Listen+Send", holder: "ops-consumer" },
      { kind: "sasRule", right: "Send", holder: "ops-producer" },
    ]);
  });

  it("refuses an unsafe budget at construction, naming the fix", async () => {
    await pulumi.runtime.setMocks(azureMocks(() => undefined), "chargeguard", "test", false);
    const namespace = new BillingNamespace("strict", { resourceGroupName: "rg", namespaceName: "sb-strict-test", sku: "Standard" });
    expect(
      () =>
        new BillingQueue("slow", {
          namespace,
          queueName: "slow",
          budget: { stripe: { timeoutMs: 120_000, maxNetworkRetries: 2 }, renewal: false },
        }),
    ).toThrow(/renewal is disabled: enable renewal, or lower stripe\.timeoutMs to at most 95000/);
  });
});
