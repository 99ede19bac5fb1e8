import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import {
  fromPulumiConfig,
  loadStackConfig,
  toPulumiConfig,
  parseStackConfig,
  StackConfigError,
} from "../../infra/config/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "chargeguard-stack-config-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof StackConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected a StackConfigError");
}

const goodValues = () => ({
  "azure-native:location": "westeurope",
  "chargeguard:resourceGroupName": "rg-billing-test",
  "chargeguard:namespace": { name: "sb-billing-test", sku: "Standard" },
  "chargeguard:queues": [{ name: "usage-billing", stripe: { timeoutMs: 30000, maxNetworkRetries: 2 } }],
});

describe("loadStackConfig", () => {
  it("loads the dev stack with its tuning", () => {
    const dev = loadStackConfig({ stack: "dev", cwd: root });
    expect(dev.stack).toBe("dev");
    expect(dev.file).toBe(join(root, "Pulumi.dev.yaml"));
    expect(dev.namespace).toEqual({
      name: "sb-billing-dev",
      sku: "Standard",
      disableLocalAuth: false,
      publicNetworkAccess: "Enabled",
      minimumTlsVersion: "1.2",
    });
    expect(dev.queues).toHaveLength(1);
    // Tuned for the app that consumes it (4 messages in flight for 2 Stripe slots): the lock covers a wait for a slot.
    expect(dev.queues[0]?.tuning).toMatchObject({ lockDuration: "PT3M30S", messageHoldMs: 207_000, maxDeliveryCount: 10, worstCaseStripeMs: 91_500 });
    expect(dev.alerts.severities).toEqual({ deadLettered: 2, throttled: 3, serverErrors: 3, abandoned: 3, backlog: 3, userErrors: 2, retryBacklog: 2 });
    expect(dev.production).toBe(false);
    expect(dev.app?.consumers.map((c) => [c.appName, c.bounds.maxReplicas, c.bounds.terminationGracePeriodSeconds])).toEqual([
      ["usage-billing-consumer", 1, 207],
    ]);
  });

  it("loads the prod stack: Premium, Entra ID only, stricter severities", () => {
    const prod = loadStackConfig({ stack: "prod", cwd: root });
    const dev = loadStackConfig({ stack: "dev", cwd: root });
    expect(prod.namespace).toMatchObject({ sku: "Premium", disableLocalAuth: true, capacity: 1, zoneRedundant: true });
    for (const key of ["deadLettered", "throttled", "serverErrors", "abandoned", "backlog"] as const) {
      expect(prod.alerts.severities[key], key).toBeLessThan(dev.alerts.severities[key]);
    }
    expect(prod.production).toBe(true);
    expect(prod.database).toMatchObject({ highAvailability: "ZoneRedundant", backupRetentionDays: 35, geoRedundantBackup: true, version: "16" });
    const invoice = prod.queues.find((q) => q.name === "invoice-settlement");
    expect(invoice?.tuning.lockDuration).toBe("PT5M");
    expect(invoice?.tuning.consumer.maxAutoLockRenewalDurationInMs).toBeGreaterThanOrEqual(2 * (invoice?.tuning.worstCaseStripeMs ?? 0));
  });

  it("reads a config file by path and names the stack after it", () => {
    const file = join(scratch, "Pulumi.staging.yaml");
    writeFileSync(file, stringify({ config: goodValues() }));
    const staging = loadStackConfig({ configFile: file });
    expect(staging.stack).toBe("staging");
    expect(staging.queues[0]?.name).toBe("usage-billing");
  });

  it("says which stack files exist when the stack has none", () => {
    expect(problemsOf(() => loadStackConfig({ stack: "qa", cwd: root }))).toEqual([
      expect.stringMatching(/file not found \(stack files here: .*Pulumi\.dev\.yaml.*Pulumi\.prod\.yaml/),
    ]);
  });

  it("reports broken YAML with its position", () => {
    const file = join(scratch, "Pulumi.broken.yaml");
    writeFileSync(file, "config:\n  chargeguard:queues: [unclosed\n");
    expect(problemsOf(() => loadStackConfig({ configFile: file }))[0]).toMatch(/^YAML: .*line/i);
  });

  it("collects one clear message per problem in a deliberately bad stack", () => {
    const file = join(scratch, "Pulumi.bad.yaml");
    writeFileSync(
      file,
      `config:
  azure-native:location: westeurope
  chargeguard:resourceGroupName: rg-billing-bad
  chargeguard:colour: blue
  chargeguard:namespace: { name: sb-billing-bad, sku: Basic, capacity: 2, disableLocalAuth: "no" }
  chargeguard:alerts: { emails: [not-an-email], severities: { deadLettered: 7 } }
  chargeguard:queues:
    - name: usage-billing
      stripe: { timeoutMs: "30s", maxNetworkRetries: 2 }
      lockTimeout: PT1M
    - name: refunds
      stripe: { timeoutMs: 30000, maxNetworkRetries: 2 }
      lockDuration: P5M
    - name: slow-charges
      stripe: { timeoutMs: 120000, maxNetworkRetries: 2 }
      renewal: false
    - name: Refunds
      stripe: { timeoutMs: 30000, maxNetworkRetries: 2 }
      maxDeliveryCount: 1
`,
    );
    const problems = problemsOf(() => loadStackConfig({ configFile: file }));
    expect(problems).toEqual([
      'chargeguard:colour: unknown key (known: chargeguard:resourceGroupName, chargeguard:production, chargeguard:bootstrap, chargeguard:maintenance, chargeguard:namespace, chargeguard:alerts, chargeguard:queues, chargeguard:observability, chargeguard:network, chargeguard:vault, chargeguard:database, chargeguard:app)',
      "chargeguard:namespace.disableLocalAuth: expected true or false",
      "chargeguard:alerts.emails[0]: expected an e-mail address",
      "chargeguard:alerts.severities.deadLettered: Azure Monitor severities run from 0 (critical) to 4 (verbose)",
      "chargeguard:queues[0].stripe.timeoutMs: expected a whole number of milliseconds",
      'chargeguard:queues[0]: unknown key "lockTimeout"',
      'chargeguard:queues[1] (refunds): lockDuration: "P5M" means months (a month has no fixed length): for minutes write "PT5M" (the T starts the time part)',
      expect.stringMatching(
        /^chargeguard:queues\[2\] \(slow-charges\): a delivery may take 373\.5 s .* renewal is disabled: enable renewal, or lower stripe\.timeoutMs to at most 95000/,
      ),
      "chargeguard:queues[3] (Refunds): the name repeats queues[1] (Service Bus names are case-insensitive)",
      expect.stringMatching(/^chargeguard:queues\[3\] \(Refunds\): maxDeliveryCount is 1: use 3 to 50/),
    ]);
  });

  it("refuses Premium-only settings on other tiers and the missing essentials", () => {
    const values = { ...goodValues(), "chargeguard:namespace": { name: "sb-billing-test", sku: "Standard", capacity: 2, zoneRedundant: true } };
    expect(problemsOf(() => parseStackConfig(values))).toEqual([
      "chargeguard:namespace.capacity: only Premium namespaces have messaging units",
      "chargeguard:namespace.zoneRedundant: only Premium namespaces choose zone redundancy",
    ]);
    expect(problemsOf(() => parseStackConfig({ "chargeguard:queues": [] }))).toEqual([
      "azure-native:location: required, the Azure region as a string (e.g. westeurope)",
      "chargeguard:resourceGroupName: required, 1-90 letters, digits, '-', '_', '.', '(' or ')' not ending in '.' (got undefined)",
      "chargeguard:namespace: required",
      "chargeguard:queues: expected a list of at least one queue",
    ]);
  });

  it("says what shape a section needs when it is not a map", () => {
    const values = { ...goodValues(), "chargeguard:namespace": "sb-billing-test", "chargeguard:queues": ["usage-billing"] };
    expect(problemsOf(() => parseStackConfig(values))).toEqual([
      "chargeguard:namespace: expected a map { name, sku, disableLocalAuth?, ... }",
      "chargeguard:queues[0]: expected a map { name, stripe, ... } per queue",
    ]);
  });

  it("follows Azure's resource group naming: 1-90 characters, no trailing period", () => {
    const withGroup = (name: string) => ({ ...goodValues(), "chargeguard:resourceGroupName": name });
    expect(parseStackConfig(withGroup("r")).resourceGroupName).toBe("r");
    expect(parseStackConfig(withGroup("a".repeat(90))).resourceGroupName).toHaveLength(90);
    for (const bad of ["", "rg.", "a".repeat(91), "rg billing"]) {
      expect(problemsOf(() => parseStackConfig(withGroup(bad))), bad).toEqual([expect.stringMatching(/^chargeguard:resourceGroupName: required, 1-90/)]);
    }
  });

  it("reads Pulumi's string-encoded config the same as the YAML values", () => {
    const values = goodValues();
    expect(parseStackConfig(fromPulumiConfig(toPulumiConfig(values)))).toEqual(parseStackConfig(values));
  });
});

const serviceValues = () => ({
  ...goodValues(),
  "chargeguard:vault": { name: "kv-billing-test" },
  "chargeguard:database": { serverName: "psql-billing-test", skuName: "Standard_D2ds_v5", tier: "GeneralPurpose", maxConnections: 100 },
  "chargeguard:app": {
    environmentName: "cae-billing-test",
    consumers: [{ queue: "usage-billing", image: "cr.example.azurecr.io/usage:1.0.0", maxConcurrentCalls: 4, maxConcurrentStripeCalls: 2 }],
  },
});

describe("the service sections", () => {
  it("computes each consumer's bounds from the Stripe and connection budgets and the queue's delivery budget", () => {
    const config = parseStackConfig(serviceValues());
    const consumer = config.app?.consumers[0];
    // min(80, one endpoint's 25 x 0.8) = 20 calls/s / (2 x 1000 / 250 ms) / 2 revisions in a rollout = 1 by Stripe;
    // (100 - 20) / 13 (a guard pool of 10, 2 for the Stripe budget, 1 breaker probe) / 2 = 3 by connections. The grace period covers a wait for one of the 2 Stripe slots.
    expect(consumer?.budget.stripeRatePerSecond).toBe(20);
    expect(consumer?.bounds).toMatchObject({ maxReplicas: 1, maxReplicasByStripe: 1, maxReplicasByConnections: 3, terminationGracePeriodSeconds: 207, messageCount: 4 });
    expect(config.queues[0]?.budget.concurrency).toEqual({ maxConcurrentCalls: 4, maxConcurrentStripeCalls: 2 });
    expect(config.queues[0]?.tuning.lockDuration).toBe("PT3M30S");
    expect(consumer).toMatchObject({ appName: "usage-billing-consumer", identityName: "id-usage-billing-consumer" });
    expect(config.database).toMatchObject({ highAvailability: "Disabled", backupRetentionDays: 7, geoRedundantBackup: false, databaseName: "billing" });
  });

  it("refuses max replicas over the budget, a consumer of no queue, and a second grant of the consumer role, each by its field", () => {
    const values = serviceValues();
    values["chargeguard:app"].consumers = [
      { queue: "usage-billing", image: "cr.example.azurecr.io/usage:1.0.0", maxConcurrentCalls: 4, maxConcurrentStripeCalls: 2, maxReplicas: 9 } as never,
      { queue: "refunds", image: "cr.example.azurecr.io/refunds:1.0.0" } as never,
    ];
    (values["chargeguard:queues"][0] as Record<string, unknown>).consumerPrincipalId = "00000000-0000-0000-0000-000000000001";
    expect(problemsOf(() => parseStackConfig(values))).toEqual([
      "chargeguard:app.consumers[0] (usage-billing).queue: usage-billing also names consumerPrincipalId: the app's own identity is its consumer, remove consumerPrincipalId (two grants of one role collide)",
      "chargeguard:app.consumers[0] (usage-billing): maxReplicas 9 is outside 1..1: the Stripe rate budget allows at most 1",
      'chargeguard:app.consumers[1] (refunds).queue: no queue "refunds" in chargeguard:queues',
    ]);
  });

  it("refuses a consumer's Stripe rate over one endpoint's limit", () => {
    const values = serviceValues();
    (values["chargeguard:app"].consumers[0] as Record<string, unknown>).stripeRatePerSecond = 30;
    expect(problemsOf(() => parseStackConfig(values))).toContain(
      "chargeguard:app.consumers[0] (usage-billing).stripeRatePerSecond: 30 calls/s is over 0.8 x one Stripe endpoint's 25/s limit (its charges all hit one endpoint)",
    );
  });

  it("tunes an invoice queue by its flow's Stripe calls, refusing the hold a pipelined app cannot be given, and an unknown flow", () => {
    const invoice = (stripe: { timeoutMs: number; maxNetworkRetries: number }) => ({ ...serviceValues(), "chargeguard:queues": [{ name: "usage-billing", flow: "invoice", stripe }] });
    // The dev stack's Stripe budget (103.5 s a delivery) x 23 calls, pipelined: no lock or grace period holds it.
    expect(problemsOf(() => parseStackConfig(invoice({ timeoutMs: 30_000, maxNetworkRetries: 2 })))).toEqual([
      expect.stringMatching(/^chargeguard:app\.consumers\[0\] \(usage-billing\): a message may be held .*: 23 Stripe calls x the delivery budget .* over Container Apps' 600 s termination grace period/),
    ]);
    const unknown = { ...goodValues(), "chargeguard:queues": [{ name: "usage-billing", flow: "refund", stripe: { timeoutMs: 1000, maxNetworkRetries: 0 } }] };
    expect(problemsOf(() => parseStackConfig(unknown))).toEqual([expect.stringContaining("chargeguard:queues[0].flow: expected one of the runtime's flows: payment-intent, charge, invoice, meter-event")]);
    // Without an app the queue is still tuned for every call of one message.
    const alone = parseStackConfig({ ...goodValues(), "chargeguard:queues": [{ name: "usage-billing", flow: "invoice", stripe: { timeoutMs: 3000, maxNetworkRetries: 0 } }] });
    expect(alone.queues[0]?.tuning.messageHoldMs).toBe(23 * 15_000);
  });

  it("refuses a grace period Container Apps cannot give and a consumer without database or vault", () => {
    const values = { ...serviceValues(), "chargeguard:queues": [{ name: "usage-billing", stripe: { timeoutMs: 200_000, maxNetworkRetries: 2 } }] };
    expect(problemsOf(() => parseStackConfig(values))).toEqual([
      expect.stringMatching(/^chargeguard:app\.consumers\[0\] \(usage-billing\): a message may be held 20\.4 min: .* over Container Apps' 600 s termination grace period/),
    ]);
    const bare = { ...serviceValues() } as Record<string, unknown>;
    delete bare["chargeguard:database"];
    delete bare["chargeguard:vault"];
    expect(problemsOf(() => parseStackConfig(bare))).toEqual([
      "chargeguard:database: required with chargeguard:app (the consumers' guard database)",
      "chargeguard:vault: required with chargeguard:app (the Stripe key is read from it)",
    ]);
  });

  it("in production asks for the network, zone-redundant HA, and a HA-capable tier", () => {
    const values = {
      ...serviceValues(),
      "chargeguard:production": true,
      "chargeguard:database": { serverName: "psql-billing-test", skuName: "Standard_B1ms", tier: "Burstable", maxConnections: 100, highAvailability: "SameZone" },
    };
    expect(problemsOf(() => parseStackConfig(values))).toEqual([
      "chargeguard:network: required in production: the database, the vault and the namespace are reached only through the VNet",
      "chargeguard:database.highAvailability: production runs ZoneRedundant (a zone outage must not stop billing)",
      "chargeguard:database.highAvailability: Burstable servers have no high availability: use GeneralPurpose or MemoryOptimized",
      "chargeguard:database.administrators: production names its own Entra administrator (a DBA group or the deploying pipeline), so each consumer's identity gets a role owning only its schema instead of administering the server",
    ]);
    // A stack named prod is production unless it says otherwise.
    expect(parseStackConfig(goodValues(), "x", "prod").production).toBe(true);
    expect(parseStackConfig({ ...goodValues(), "chargeguard:production": false }, "x", "prod").production).toBe(false);
  });

  it("refuses publicNetworkAccess Disabled unless the namespace is Premium behind a private endpoint", () => {
    const disabled = (sku: string, network: boolean) => ({
      ...goodValues(),
      "chargeguard:namespace": { name: "sb-billing-test", sku, publicNetworkAccess: "Disabled" },
      ...(network ? { "chargeguard:network": { vnetName: "vnet-test", addressSpace: "10.40.0.0/16" } } : {}),
    });
    const refusal = 'chargeguard:namespace.publicNetworkAccess: "Disabled" needs a Premium namespace reached through a private endpoint (set sku: Premium and a chargeguard:network section); otherwise nothing can reach the namespace';
    expect(problemsOf(() => parseStackConfig(disabled("Standard", false)))).toEqual([refusal]);
    expect(problemsOf(() => parseStackConfig(disabled("Premium", false)))).toEqual([refusal]);
    expect(problemsOf(() => parseStackConfig(disabled("Standard", true)))).toEqual([
      refusal,
      "chargeguard:network: private endpoints for Service Bus are Premium only: set chargeguard:namespace.sku to Premium",
    ]);
    expect(parseStackConfig(disabled("Premium", true)).namespace.publicNetworkAccess).toBe("Disabled");
    expect(problemsOf(() => parseStackConfig({ ...goodValues(), "chargeguard:network": { vnetName: "v", addressSpace: "10.40.0.0/24" } }))).toContain(
      "chargeguard:network.addressSpace: expected an IPv4 CIDR block of /22 or larger starting at its network address (e.g. 10.40.0.0/16)",
    );
  });

  it("accepts a secure webhook URL and refuses secure values where nothing is secret", () => {
    const secure = { secure: "v1:AAAABBBBCCCC" };
    const config = parseStackConfig({ ...goodValues(), "chargeguard:alerts": { webhooks: [{ name: "pagerduty", url: secure }] } });
    expect(config.alerts.webhooks).toEqual([{ name: "pagerduty", url: secure }]);
    expect(problemsOf(() => parseStackConfig({ ...goodValues(), "chargeguard:resourceGroupName": secure }))).toEqual([
      "chargeguard:resourceGroupName: secure values are accepted only in chargeguard:alerts.webhooks[].url; this setting is not a secret",
      expect.stringMatching(/^chargeguard:resourceGroupName: required/),
    ]);
  });
});
