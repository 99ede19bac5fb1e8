// `chargeguard plan` end to end: the built bin in a child process (npm test builds first), as CI and reviewers run it.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";

const root = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(root, "dist/cli/index.js");
const scratch = mkdtempSync(join(tmpdir(), "chargeguard-plan-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function plan(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, "plan", ...args], { cwd: root, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(() => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` first (npm test does)`);
});

describe("chargeguard plan", () => {
  it("prints the dev plan's summary, and its details with --details, and exits 0", async () => {
    const { code, stdout, stderr } = await plan("--stack", "dev");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("Stack dev (Pulumi.dev.yaml), planned offline under Pulumi mocks");
    expect(stdout).toMatch(/Policies: \d+ checked, all passed\./);
    // Each queue: throughput, lock against the Stripe budget, access by role name, alerts in words.
    expect(stdout).toContain("Queue usage-billing: payment-intent flow, 1 Stripe call per message");
    expect(stdout).toContain("  throughput   8 messages/s per replica, 8 messages/s at max replicas (1); worst case 1.2 messages/min per replica");
    expect(stdout).toContain("  lock         210 s, no renewal: covers a 207 s hold (delivery budget 103.5 s x 2 for a Stripe slot)");
    expect(stdout).toContain("  access       id-usage-billing-consumer (consumer): Azure Service Bus Data Receiver + Azure Service Bus Data Sender");
    expect(stdout).toContain("id-usage-billing-consumer-scaler (KEDA scaler): Azure Service Bus Data Owner");
    expect(stdout).toContain("SAS rule usage-billing-consumer: Listen + Send");
    expect(stdout).toContain("sev 3 informational: throttled requests above 0 requests");
    expect(stdout).not.toContain("maxReplicas 1: Stripe allows 1");
    expect(stdout.trimEnd().split("\n").at(-1)).toMatch(/^More with --details: /);

    const details = await plan("--stack", "dev", "--details");
    expect(details.code).toBe(0);
    // The summary first, then the details: the computed bounds each with its reason.
    expect(details.stdout.indexOf("DETAILS")).toBeGreaterThan(details.stdout.indexOf("Queue usage-billing"));
    expect(details.stdout).toMatch(/usage-billing-consumer\s+usage-billing\s+1 to 1\s+207 s\s+4 messages\s+13 connections\s+26 connections\s+30 connections/);
    expect(details.stdout).toContain("maxReplicas 1: Stripe allows 1 (20 calls/s budget / 8 calls/s per replica");
    expect(details.stdout).toMatch(/Azure Service Bus Data Owner\s+id-usage-billing-consumer-scaler \(KEDA scaler\)\s+queue usage-billing/);
    expect(stdout).toContain("  Stripe       20 requests/s for billing (0.8 x 25 per account), 20 per app (0.8 x 25 per endpoint), calls from 250 ms");
    expect(stdout).toContain("  throughput   8 messages/s at max replicas over 1 queue, using 8 Stripe requests/s of the 20 requests/s for billing");
    expect(details.stdout).toContain("Stripe's live default is 100/s");
    // What a change of a static server parameter costs.
    expect(details.stdout).toContain("max_connections is static: it applies only after a server restart");
    // Where the Stripe key stands (names only), and what the operator does.
    expect(details.stdout).toContain("  Secret stripe-api-key (STRIPE_API_KEY; present: unknown offline), read by id-usage-billing-consumer (granted Key Vault Secrets User), referenced by usage-billing-consumer.");
    expect(details.stdout).toContain("    Operator: with Key Vault Secrets Officer on kv-billing-dev-cg, from your machine (the vault is public): az keyvault secret set");
  });

  it("prints exactly { stack, resources, queues, consumers, secrets, alerts, violations } with --json", async () => {
    const { code, stdout } = await plan("--stack", "prod", "--json");
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as Record<string, unknown>;
    expect(Object.keys(report)).toEqual(["stack", "resources", "queues", "consumers", "secrets", "alerts", "violations"]);
    expect((report.consumers as { app: string; bounds: Record<string, unknown> }[]).map((c) => [c.app, c.bounds.maxReplicas, c.bounds.terminationGracePeriodSeconds, c.bounds.messageCount])).toEqual([
      ["usage-billing-consumer", 2, 207, 2],
      ["invoice-settlement-consumer", 2, 377, 1],
    ]);
    expect(report.stack).toBe("prod");
    expect(report.violations).toEqual([]);
    expect(report.queues).toEqual([
      {
        name: "usage-billing",
        flow: "payment-intent",
        stripeCallsPerMessage: 1,
        lockDuration: "PT3M30S",
        maxDeliveryCount: 10,
        worstCaseStripeMs: 91_500,
        consumer: { maxAutoLockRenewalDurationInMs: 0, stripeTimeoutMs: 30_000, stripeMaxNetworkRetries: 2 },
      },
      {
        name: "invoice-settlement",
        flow: "payment-intent",
        stripeCallsPerMessage: 1,
        lockDuration: "PT5M",
        maxDeliveryCount: 8,
        worstCaseStripeMs: 361_500,
        consumer: { maxAutoLockRenewalDurationInMs: 753_000, stripeTimeoutMs: 80_000, stripeMaxNetworkRetries: 2 },
      },
    ]);
    const resources = report.resources as { type: string; name: string; inputs: Record<string, unknown> }[];
    for (const resource of resources) expect(Object.keys(resource)).toEqual(["type", "name", "inputs", "dependsOn"]);
    expect(resources.find((r) => r.type === "azure-native:servicebus:Queue" && r.name === "invoice-settlement")?.inputs).toMatchObject({
      lockDuration: "PT5M",
      maxDeliveryCount: 8,
      deadLetteringOnMessageExpiration: true,
    });
  });

  it("exits 1 and names the policy when a mandatory policy fails", async () => {
    const file = join(scratch, "Pulumi.prod.yaml");
    writeFileSync(
      file,
      stringify({
        config: {
          "azure-native:location": "westeurope",
          "chargeguard:resourceGroupName": "rg-billing-prod",
          "chargeguard:namespace": { name: "sb-billing-prod", sku: "Premium", disableLocalAuth: false },
          "chargeguard:alerts": { emails: ["billing-oncall@example.com"] },
          "chargeguard:queues": [{ name: "usage-billing", stripe: { timeoutMs: 30000, maxNetworkRetries: 2 } }],
        },
      }),
    );
    const text = await plan("--config-file", file);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      "[mandatory] servicebus-local-auth-disabled-in-prod on sb-billing-prod: namespace sb-billing-prod: stack prod is production: set disableLocalAuth: true (Entra ID only)",
    );
    expect(text.stdout).toMatch(/Policies: \d+ checked, 2 violation\(s\), 2 mandatory\./);
    // No consumer app in this stack: its throughput is not made up.
    expect(text.stdout).toContain("  throughput   not computed: no consumer app of this stack reads this queue");
  });

  it("exits 2 naming the field when a consumer's bounds cannot be met, and keeps a secure webhook URL out of its output", async () => {
    const file = join(scratch, "Pulumi.staging.yaml");
    const config = {
      "azure-native:location": "westeurope",
      "chargeguard:resourceGroupName": "rg-billing-staging",
      "chargeguard:namespace": { name: "sb-billing-staging", sku: "Standard" },
      "chargeguard:alerts": { webhooks: [{ name: "pager", url: { secure: "v1:c2VjcmV0LXdlYmhvb2s=" } }] },
      "chargeguard:queues": [{ name: "usage-billing", stripe: { timeoutMs: 30000, maxNetworkRetries: 2 } }],
      "chargeguard:vault": { name: "kv-billing-staging" },
      "chargeguard:database": { serverName: "psql-billing-staging", skuName: "Standard_B1ms", tier: "Burstable", maxConnections: 50 },
      "chargeguard:app": {
        environmentName: "cae-billing-staging",
        consumers: [{ queue: "usage-billing", image: "cr.example.azurecr.io/usage:1.0.0", maxConcurrentCalls: 2, maxConcurrentStripeCalls: 1, maxReplicas: 50 }],
      },
    };
    writeFileSync(file, stringify({ config }));
    const refused = await plan("--config-file", file);
    expect(refused.code).toBe(2);
    // (50 - 20 reserved) / 10 per replica / 2 revisions side by side in a rollout = 1.
    expect(refused.stderr).toContain("chargeguard:app.consumers[0] (usage-billing): maxReplicas 50 is outside 1..1: the connection budget allows at most 1");

    config["chargeguard:app"].consumers = [{ queue: "usage-billing", image: "cr.example.azurecr.io/usage:1.0.0", maxConcurrentCalls: 2, maxConcurrentStripeCalls: 1 } as never];
    writeFileSync(file, stringify({ config }));
    const planned = await plan("--config-file", file, "--json");
    expect(planned.stderr).toBe("");
    expect(planned.code).toBe(0);
    expect(planned.stdout).not.toContain("c2VjcmV0LXdlYmhvb2s=");
    expect(planned.stdout).not.toContain("secure-value.invalid");
    const group = (JSON.parse(planned.stdout) as { resources: { type: string; inputs: Record<string, unknown> }[] }).resources.find(
      (r) => r.type === "azure-native:monitor:ActionGroup",
    );
    expect(group?.inputs.webhookReceivers).toBe("[secret]");
  });

  it("exits 2 with one line per problem for an invalid config", async () => {
    const file = join(scratch, "Pulumi.bad.yaml");
    writeFileSync(
      file,
      stringify({
        config: {
          "azure-native:location": "westeurope",
          "chargeguard:resourceGroupName": "rg-billing-bad",
          "chargeguard:namespace": { name: "sb-billing-bad", sku: "Standard", tls: "1.0" },
          "chargeguard:queues": [{ name: "usage-billing", stripe: { timeoutMs: 30000, maxNetworkRetries: 2 }, lockDuration: "P5M" }],
        },
      }),
    );
    const { code, stdout, stderr } = await plan("--config-file", file);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain("Pulumi.bad.yaml has 2 problems:");
    expect(stderr).toContain('  - chargeguard:namespace: unknown key "tls"');
    expect(stderr).toContain('  - chargeguard:queues[0] (usage-billing): lockDuration: "P5M" means months');
  });

  it("asks for a stack, and documents its flags", async () => {
    const missing = await plan();
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("give --stack <name>");
    const help = await plan("--help");
    expect(help.code).toBe(0);
    for (const flag of ["--stack <name>", "--config-file <path>", "--details", "--json"]) expect(help.stdout).toContain(flag);
  });

  it("exits 2, never 1 (its policy-failed code), on usage errors: an unknown flag, or conflicting stack flags", async () => {
    const unknown = await plan("--stack", "dev", "--colour");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("chargeguard plan: --colour is not an option; allowed: --stack");
    const conflicting = await plan("--stack", "dev", "--config-file", "Pulumi.prod.yaml");
    expect(conflicting.code).toBe(2);
    expect(conflicting.stderr).toContain("--stack dev and --config-file Pulumi.prod.yaml conflict: the file is stack prod");
    expect(conflicting.stdout).toBe("");
    const agreeing = await plan("--stack", "dev", "--config-file", "Pulumi.dev.yaml", "--json");
    expect(agreeing.code).toBe(0);
    expect(JSON.parse(agreeing.stdout)).toMatchObject({ stack: "dev" });
  });
});
