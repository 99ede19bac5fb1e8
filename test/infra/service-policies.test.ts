// The whole-service policies called the way the Pulumi policy engine calls them, with hand-built arguments; and the
// type matching every policy uses, checked against the aliases azure-native itself declares.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { describe, expect, it } from "vitest";
import { resourceArgs, stackArgs, urnOf, type PolicyTarget } from "../../infra/plan/policy-args.js";
import { queueLockDuration } from "../../infra/policy/policies.js";
import { isType, types } from "../../infra/policy/resource-types.js";
import {
  consumerBounds,
  deleteLockInProduction,
  maintenanceWindowOpen,
  diagnosticsDedicated,
  diagnosticsInProduction,
  guardDatabase,
  namespacePrivateAccess,
  noPlainSecrets,
  scaleRuleByIdentity,
  vaultProtection,
} from "../../infra/policy/service-policies.js";
import { encodeQueueMetadata, MAINTENANCE_TAG, REPLICA_BUDGET_TAG_NAME } from "../../infra/specs/index.js";
import { tuneQueue } from "../../tuning/index.js";

const GROUP = "/subscriptions/s/resourceGroups/rg/providers";
const NS_ID = `${GROUP}/Microsoft.ServiceBus/namespaces/sb-billing`;

function target(type: string, name: string, props: Record<string, unknown>, stack = "dev"): PolicyTarget {
  return { type, name, urn: urnOf(stack, "chargeguard", type, name), inputs: props, outputs: props };
}

async function resourceViolations(policy: ResourceValidationPolicy, subject: PolicyTarget): Promise<string[]> {
  const messages: string[] = [];
  for (const validate of [policy.validateResource ?? []].flat()) await validate(resourceArgs(subject), (message) => messages.push(message));
  return messages;
}

async function stackViolations(policy: StackValidationPolicy, subjects: PolicyTarget[]): Promise<string[]> {
  const messages: string[] = [];
  await policy.validateStack(stackArgs(subjects, { productionStacks: ["prod"] }), (message) => messages.push(message));
  return messages;
}

const namespace = (props: Record<string, unknown> = {}, stack = "dev") =>
  target(types.namespace, "sb-billing", { id: NS_ID, namespaceName: "sb-billing", sku: { name: "Premium", tier: "Premium" }, publicNetworkAccess: "Enabled", ...props }, stack);
const endpoint = (groupIds = ["namespace"], stack = "dev") =>
  target(types.privateEndpoint, "pe-sb-billing", { privateLinkServiceConnections: [{ privateLinkServiceId: NS_ID, groupIds }] }, stack);

describe("servicebus-private-access", () => {
  it("refuses publicNetworkAccess Disabled without Premium and a private endpoint to the namespace", async () => {
    expect(await stackViolations(namespacePrivateAccess, [namespace({ publicNetworkAccess: "Disabled" }), endpoint()])).toEqual([]);
    expect(await stackViolations(namespacePrivateAccess, [namespace({ publicNetworkAccess: "Disabled" })])).toEqual([
      "namespace sb-billing: publicNetworkAccess is Disabled but no private endpoint reaches it: nothing could connect",
    ]);
    expect(await stackViolations(namespacePrivateAccess, [namespace({ publicNetworkAccess: "Disabled" }), endpoint(["vault"])])).toHaveLength(1);
    expect(
      await stackViolations(namespacePrivateAccess, [namespace({ publicNetworkAccess: "Disabled", sku: { name: "Standard", tier: "Standard" } }), endpoint()]),
    ).toEqual(["namespace sb-billing: publicNetworkAccess is Disabled but it is not Premium (private endpoints are Premium only): nothing could connect"]);
  });

  it("keeps production namespaces off the public network", async () => {
    expect(await stackViolations(namespacePrivateAccess, [namespace({}, "prod")])).toEqual([
      "namespace sb-billing: production namespaces are reached only through a private endpoint: set publicNetworkAccess Disabled (Premium + chargeguard:network)",
    ]);
    expect(await stackViolations(namespacePrivateAccess, [namespace({ publicNetworkAccess: "Disabled" }, "prod"), endpoint(["namespace"], "prod")])).toEqual([]);
  });
});

describe("diagnostics", () => {
  const setting = (props: Record<string, unknown>, stack = "dev") =>
    target(types.diagnosticSetting, "sb-billing-diagnostics", { name: "sb-billing-diagnostics", resourceUri: NS_ID, workspaceId: `${GROUP}/Microsoft.OperationalInsights/workspaces/log`, ...props }, stack);

  it("sends diagnostics to Dedicated tables, not AzureDiagnostics", async () => {
    expect(await resourceViolations(diagnosticsDedicated, setting({ logAnalyticsDestinationType: "Dedicated" }))).toEqual([]);
    expect(await resourceViolations(diagnosticsDedicated, setting({}))).toEqual([
      'diagnostic setting sb-billing-diagnostics: set logAnalyticsDestinationType "Dedicated" (otherwise logs land in the legacy AzureDiagnostics table)',
    ]);
    // A v2-era token and an explicit API version are the same resource.
    expect(await resourceViolations(diagnosticsDedicated, { ...setting({}), type: "azure-native:insights/v20210501preview:DiagnosticSetting" })).toHaveLength(1);
  });

  it("requires diagnostics for every namespace, server, vault and environment of a production stack", async () => {
    const server = target(types.postgresServer, "guard-db", { id: `${GROUP}/Microsoft.DBforPostgreSQL/flexibleServers/psql`, serverName: "psql" }, "prod");
    expect(await stackViolations(diagnosticsInProduction, [namespace({}, "prod"), server, setting({ logAnalyticsDestinationType: "Dedicated" }, "prod")])).toEqual([
      "database server psql: production resources send their logs and metrics to Log Analytics: add a diagnostic setting",
    ]);
    expect(await stackViolations(diagnosticsInProduction, [namespace({}, "dev"), target(types.postgresServer, "guard-db", { id: "x" })])).toEqual([]);
  });
});

describe("delete-lock-in-prod", () => {
  it("refuses a lock on a production namespace: its children change on day two (ScopeLocked)", async () => {
    const lock = (scope: string, level = "CanNotDelete") => target(types.lock, "lock", { scope, level }, "prod");
    expect(await stackViolations(deleteLockInProduction, [namespace({}, "prod")])).toEqual([]);
    expect(await stackViolations(deleteLockInProduction, [namespace({}, "prod"), lock(NS_ID)])).toEqual([
      "namespace sb-billing: no delete lock on the namespace: removing a queue or rotating a grant under it would fail ScopeLocked; Pulumi's protect guards it",
    ]);
    expect(await stackViolations(deleteLockInProduction, [namespace({}, "dev"), lock(NS_ID)])).toEqual([]);
  });

  it("requires one on each production database server and vault too", async () => {
    const server = target(types.postgresServer, "guard-db", { id: `${GROUP}/Microsoft.DBforPostgreSQL/flexibleServers/psql`, serverName: "psql" }, "prod");
    const vault = target(types.vault, "secrets", { id: `${GROUP}/Microsoft.KeyVault/vaults/kv`, vaultName: "kv" }, "prod");
    const lock = (scope: unknown) => target(types.lock, `lock-${String(scope)}`, { scope, level: "CanNotDelete" }, "prod");
    expect(await stackViolations(deleteLockInProduction, [server, vault, lock(server.inputs.id)])).toEqual([
      "vault kv: production vaults carry a CanNotDelete lock: deleting one loses the consumers' Stripe keys (purge protection keeps them recoverable, not usable)",
    ]);
    expect(await stackViolations(deleteLockInProduction, [server, vault])).toHaveLength(2);
    expect(await stackViolations(deleteLockInProduction, [server, vault, lock(server.inputs.id), lock(vault.inputs.id)])).toEqual([]);
    // A lock above them (the resource group) covers them too.
    expect(await stackViolations(deleteLockInProduction, [server, vault, lock(GROUP.replace(/\/providers$/, ""))])).toEqual([]);
    // In a maintenance window (tagged) the lock may be lifted; the advisory policy says the window is open.
    const open = (resource: typeof server) => ({ ...resource, inputs: { ...resource.inputs, tags: { [MAINTENANCE_TAG]: "lifted" } }, outputs: { ...resource.outputs, tags: { [MAINTENANCE_TAG]: "lifted" } } });
    expect(await stackViolations(deleteLockInProduction, [open(server), open(vault)])).toEqual([]);
    expect(await stackViolations(maintenanceWindowOpen, [open(server), vault])).toEqual([
      "psql: delete lock lifted for a maintenance window: after the change, pulumi config set chargeguard:maintenance false and pulumi up",
    ]);
  });
});

const budget = { stripe: { timeoutMs: 30_000, maxNetworkRetries: 2 }, processingMs: 2000 };
const queue = target(types.queue, "usage-billing", {
  queueName: "usage-billing",
  userMetadata: encodeQueueMetadata({ budget, consumer: tuneQueue(budget).consumer }),
});
const recorded = { maxConcurrentCalls: 4, maxConcurrentStripeCalls: 2, stripeRatePerSecond: 20, fastestStripeCallMs: 250, connectionBudget: 30 };
const app = (template: Record<string, unknown> = {}, scale: Record<string, unknown> = {}, tags: Record<string, string> = { [REPLICA_BUDGET_TAG_NAME]: JSON.stringify(recorded) }) =>
  target(types.containerApp, "usage-billing-consumer", {
    containerAppName: "usage-billing-consumer",
    tags,
    configuration: { secrets: [{ name: "stripe-api-key", keyVaultUrl: "https://kv.vault.azure.net/secrets/stripe-api-key", identity: "id" }] },
    template: {
      terminationGracePeriodSeconds: 207,
      containers: [
        {
          name: "consumer",
          env: [
            { name: "SERVICEBUS_QUEUE", value: "usage-billing" },
            { name: "MAX_CONCURRENT_CALLS", value: "4" },
            { name: "MAX_CONCURRENT_STRIPE_CALLS", value: "2" },
            { name: "STRIPE_REQUESTS_PER_SECOND", value: "20" },
            { name: "STRIPE_API_KEY", secretRef: "stripe-api-key" },
          ],
        },
      ],
      scale: {
        minReplicas: 1,
        maxReplicas: 1,
        rules: [{ name: "servicebus-queue", custom: { type: "azure-servicebus", identity: "id", metadata: { namespace: "sb-billing", queueName: "usage-billing", messageCount: "4" } } }],
        ...scale,
      },
      ...template,
    },
  });

describe("consumer apps", () => {
  it("authenticate their KEDA rule with the identity, never a connection string", async () => {
    expect(await resourceViolations(scaleRuleByIdentity, app())).toEqual([]);
    const sas = app({}, { rules: [{ name: "servicebus-queue", custom: { type: "azure-servicebus", metadata: { namespace: "sb-billing" }, auth: [{ secretRef: "sb-connection", triggerParameter: "connection" }] } }] });
    expect(await resourceViolations(scaleRuleByIdentity, sas)).toEqual([
      "app usage-billing-consumer: scale rule servicebus-queue authenticates with a secret (template.scale.rules[].custom.auth): use identity, local auth stays off",
      "app usage-billing-consumer: scale rule servicebus-queue has no identity (template.scale.rules[].custom.identity): KEDA would need a Manage-rights connection string",
    ]);
  });

  it("cover a message's hold with the grace period, keep one replica, and stay within their recorded budgets", async () => {
    expect(await stackViolations(consumerBounds, [queue, app()])).toEqual([]);
    expect(await stackViolations(consumerBounds, [queue, app({ terminationGracePeriodSeconds: 104 }, { minReplicas: 0, maxReplicas: 3 })])).toEqual([
      "app usage-billing-consumer: template.terminationGracePeriodSeconds 104 is shorter than a message's hold on queue usage-billing (207 s: its delivery budget 103.5 s, plus as long again waiting for one of 2 Stripe slots shared by 4 messages in flight): a scale-in would SIGKILL charges in flight",
      "app usage-billing-consumer: template.scale.minReplicas must be at least 1 (a scale-in to zero cuts in-flight charges)",
      "app usage-billing-consumer: template.scale.maxReplicas 3 is outside 1..1: the Stripe rate budget allows at most 1",
    ]);
    expect(await stackViolations(consumerBounds, [queue, app({}, {}, {})])).toEqual([
      `app usage-billing-consumer: no ${REPLICA_BUDGET_TAG_NAME} tag: its max replicas cannot be checked against the Stripe and connection budgets`,
    ]);
    const wider = { [REPLICA_BUDGET_TAG_NAME]: JSON.stringify({ ...recorded, stripeRatePerSecond: 40 }) };
    expect(await stackViolations(consumerBounds, [queue, app({}, {}, wider)])).toEqual([
      "app usage-billing-consumer: STRIPE_REQUESTS_PER_SECOND differs from the Stripe budget its replicas were computed from (40/s)",
    ]);
    const maxConnections = target(types.postgresConfiguration, "max-connections", { configurationName: "max_connections", value: "35" });
    expect(await stackViolations(consumerBounds, [queue, app(), maxConnections])).toEqual([
      "consumer apps at max replicas, old and new revision side by side, open 26 connections (guard pools, Stripe budget, breaker probes), over max_connections 35 minus 20 reserved",
    ]);
  });
});

describe("guard-database and keyvault-protection", () => {
  const server = (props: Record<string, unknown>, stack = "prod") =>
    target(types.postgresServer, "guard-db", {
      serverName: "psql",
      version: "16",
      authConfig: { activeDirectoryAuth: "Enabled", passwordAuth: "Disabled" },
      highAvailability: { mode: "ZoneRedundant" },
      backup: { backupRetentionDays: 35 },
      network: { delegatedSubnetResourceId: "subnet", publicNetworkAccess: "Disabled" },
      ...props,
    }, stack);

  it("keeps the production database Entra-only, highly available, backed up and private", async () => {
    expect(await stackViolations(guardDatabase, [server({})])).toEqual([]);
    expect(
      await stackViolations(guardDatabase, [
        server({ version: "15", authConfig: { activeDirectoryAuth: "Enabled", passwordAuth: "Enabled" }, highAvailability: { mode: "Disabled" }, network: { publicNetworkAccess: "Enabled" } }),
      ]),
    ).toEqual([
      "database server psql: version 15: the guard needs PostgreSQL 16 or later",
      "database server psql: production is Entra only: set authConfig.passwordAuth Disabled",
      "database server psql: production runs highAvailability.mode ZoneRedundant",
      "database server psql: production databases have private access only (network.delegatedSubnetResourceId, publicNetworkAccess Disabled)",
    ]);
    expect(await stackViolations(guardDatabase, [server({ highAvailability: { mode: "Disabled" }, network: {} }, "dev")])).toEqual([]);
  });

  it("gives production vaults purge protection and no public access, every vault RBAC", async () => {
    const vault = (properties: Record<string, unknown>, stack = "prod") => target(types.vault, "secrets", { vaultName: "kv", properties }, stack);
    expect(await stackViolations(vaultProtection, [vault({ enableRbacAuthorization: true, enablePurgeProtection: true, publicNetworkAccess: "Disabled" })])).toEqual([]);
    expect(await stackViolations(vaultProtection, [vault({ enableRbacAuthorization: true })])).toEqual([
      "vault kv: production vaults enable purge protection (properties.enablePurgeProtection)",
      "vault kv: production vaults are reached only through a private endpoint (properties.publicNetworkAccess Disabled)",
    ]);
    expect(await stackViolations(vaultProtection, [vault({}, "dev")])).toEqual(["vault kv: set properties.enableRbacAuthorization (roles per identity, no access policies)"]);
  });
});

describe("no-plain-secrets", () => {
  it("refuses credentials in plain inputs and Container Apps secrets that carry their value", async () => {
    expect(await resourceViolations(noPlainSecrets, app())).toEqual([]);
    const leaky = app({ containers: [{ name: "consumer", env: [{ name: "SB", value: "Endpoint=sb://x/;SharedAccessKeyName=a;SharedAccessKey=abc" }] }] });
    (leaky.inputs.configuration as { secrets: unknown[] }).secrets.push({ name: "stripe", value: ["rk", "live", "1234567890abcdef"].join("_") }); // built here: the lint rule refuses key literals
    expect(await resourceViolations(noPlainSecrets, leaky)).toEqual([
      "usage-billing-consumer: configuration.secrets[1].value holds a Stripe key in plain text: keep it in Key Vault (or mark it secret)",
      "usage-billing-consumer: template.containers[0].env[0].value holds a Service Bus SAS key in plain text: keep it in Key Vault (or mark it secret)",
      "usage-billing-consumer: configuration.secrets stripe carries its value: reference the Key Vault secret (keyVaultUrl + identity) instead",
    ]);
    // What the plan shows for a pulumi.secret input passes.
    expect(await resourceViolations(noPlainSecrets, target(types.actionGroup, "alerts", { webhookReceivers: "[secret]" }))).toEqual([]);
  });
});

describe("resource types", () => {
  it("match every alias azure-native declares for each policed type, and nothing else", () => {
    const require = createRequire(import.meta.url);
    for (const canonical of Object.values(types)) {
      const [, module = "", name = ""] = canonical.split(":");
      const file = require.resolve(`@pulumi/azure-native/${module}/${name.charAt(0).toLowerCase()}${name.slice(1)}.js`);
      const aliases = [...readFileSync(file, "utf8").matchAll(/\{ type: "(azure-native:[^"]+)" \}/g)].map((match) => match[1] as string);
      expect(aliases.length, canonical).toBeGreaterThan(0);
      for (const alias of aliases) expect(isType(alias, canonical), `${alias} is ${canonical}`).toBe(true);
    }
    expect(isType("azure-native:servicebus/v20240101:Queue", types.queue)).toBe(true);
    expect(isType("azure-native:insights:MetricAlert", types.metricAlert)).toBe(true);
    expect(isType("azure-native:network/v20190201:InterfaceEndpoint", types.privateEndpoint)).toBe(true);
    expect(isType("azure-native:servicebus:Namespace", types.queue)).toBe(false);
    expect(isType("azure:servicebus:Queue", types.queue)).toBe(false);
  });

  it("let a policy see a queue registered under a versioned token", async () => {
    const versioned = { ...target(types.queue, "q", { queueName: "q", lockDuration: "P5M" }), type: "azure-native:servicebus/v20221001preview:Queue" };
    expect(await resourceViolations(queueLockDuration, versioned)).toEqual([expect.stringContaining('"P5M" means months')]);
  });
});
