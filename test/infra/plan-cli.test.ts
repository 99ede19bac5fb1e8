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
  it("prints the dev plan as a table and exits 0", async () => {
    const { code, stdout, stderr } = await plan("--stack", "dev");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("Stack dev (Pulumi.dev.yaml), planned offline under Pulumi mocks");
    expect(stdout).toMatch(/QUEUE\s+LOCK\s+MAX DELIVERIES\s+RENEWAL DEADLINE\s+STRIPE WORST CASE\s+ALERTS\s+ACCESS/);
    expect(stdout).toMatch(/usage-billing\s+PT2M\s+10\s+none: lock covers it\s+91\.5 s\s+dead-lettered sev 2\s+Data Receiver: 00000000-0000-0000-0000-000000000001/);
    expect(stdout).toContain("Listen+Send SAS rule usage-billing-consumer");
    expect(stdout).toContain("Policies: 8 checked, all passed.");
  });

  it("prints exactly { stack, resources, queues, violations } with --json", async () => {
    const { code, stdout } = await plan("--stack", "prod", "--json");
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as Record<string, unknown>;
    expect(Object.keys(report)).toEqual(["stack", "resources", "queues", "violations"]);
    expect(report.stack).toBe("prod");
    expect(report.violations).toEqual([]);
    expect(report.queues).toEqual([
      {
        name: "usage-billing",
        lockDuration: "PT2M",
        maxDeliveryCount: 10,
        worstCaseStripeMs: 91_500,
        consumer: { maxAutoLockRenewalDurationInMs: 0, stripeTimeoutMs: 30_000, stripeMaxNetworkRetries: 2 },
      },
      {
        name: "invoice-settlement",
        lockDuration: "PT5M",
        maxDeliveryCount: 8,
        worstCaseStripeMs: 361_500,
        consumer: { maxAutoLockRenewalDurationInMs: 753_000, stripeTimeoutMs: 80_000, stripeMaxNetworkRetries: 2 },
      },
    ]);
    const resources = report.resources as { type: string; name: string; inputs: Record<string, unknown> }[];
    for (const resource of resources) expect(Object.keys(resource)).toEqual(["type", "name", "inputs"]);
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
    expect(text.stdout).toContain("Policies: 8 checked, 1 violation(s), 1 mandatory.");
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
    for (const flag of ["--stack <name>", "--config-file <path>", "--json"]) expect(help.stdout).toContain(flag);
  });
});
