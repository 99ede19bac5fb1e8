import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { fromPulumiConfig, loadStackConfig, toPulumiConfig } from "../../infra/load-stack-config.js";
import { parseStackConfig, StackConfigError } from "../../infra/stack-config.js";

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
    expect(dev.queues[0]?.tuning).toMatchObject({ lockDuration: "PT2M", maxDeliveryCount: 10, worstCaseStripeMs: 91_500 });
    expect(dev.alerts.severities).toEqual({ deadLettered: 2, throttled: 3, serverErrors: 3, abandoned: 3, backlog: 3 });
  });

  it("loads the prod stack: Premium, Entra ID only, stricter severities", () => {
    const prod = loadStackConfig({ stack: "prod", cwd: root });
    const dev = loadStackConfig({ stack: "dev", cwd: root });
    expect(prod.namespace).toMatchObject({ sku: "Premium", disableLocalAuth: true, capacity: 1, zoneRedundant: true });
    for (const key of Object.keys(dev.alerts.severities) as (keyof typeof dev.alerts.severities)[]) {
      expect(prod.alerts.severities[key], key).toBeLessThan(dev.alerts.severities[key]);
    }
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
      'chargeguard:colour: unknown key (known: chargeguard:resourceGroupName, chargeguard:namespace, chargeguard:alerts, chargeguard:queues)',
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
