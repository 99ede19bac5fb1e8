// Every secret shape the runtime's redaction knows is caught by the secrets policy and hidden from the plan (issue 43
// item 7): a database URL with its password, a `kb_live_` key and a `SharedAccessKey = ...` with spaces in an app's
// `environment:` were passed by no-plain-secrets and printed by `plan --json`.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { planStack } from "../../infra/plan/run-plan.js";
import { secretShapeIn } from "../../infra/specs/index.js";
import { redactSecrets } from "../../runtime/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const planted = {
  DATABASE_URL: "postgres://billing:hunter2-Secret@psql-billing-dev.postgres.database.azure.com:5432/billing",
  KEYBRAKE_API_KEY: "kb_live_8fJ2kLmN0pQrStUv",
  SERVICEBUS_CONNECTION: "Endpoint=sb://sb-billing-dev.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey = c2VjcmV0LWtleS12YWx1ZQ==",
  STRIPE_RESTRICTED: "rk_live_51HxYzAbCdEfGh",
};

describe("secret shapes", () => {
  it("catches every sample the runtime's redaction changes, and the spaced SharedAccessKey it does not", () => {
    const samples = [
      ...Object.values(planted),
      "Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=a;SharedAccessKey=abc123=",
      "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abcd==",
      "host=db password=hunter2",
      "Authorization: Bearer abc.def",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
      "sk_test_abcdef123456",
      "https://vault.example/secrets?sig=abcdef",
    ];
    for (const sample of samples) {
      if (redactSecrets(sample) !== sample) expect(secretShapeIn(sample), sample).toBeDefined();
    }
    expect(secretShapeIn(planted.SERVICEBUS_CONNECTION)).toBe("a Service Bus SAS key");
    for (const harmless of ["westeurope", "postgres://psql-billing-dev.postgres.database.azure.com:5432/billing", "SharedAccessKeyName=send", "PT5M", "usage-billing"]) {
      expect(secretShapeIn(harmless), harmless).toBeUndefined();
    }
  });

  it("no-plain-secrets names each in a consumer's environment, and plan --json prints none of them", async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), "chargeguard-secret-shapes-"));
    try {
      const file = parse(await readFile(path.join(root, "Pulumi.dev.yaml"), "utf8")) as { config: Record<string, { consumers: Record<string, unknown>[] }> };
      file.config["chargeguard:app"]!.consumers[0]!.environment = planted;
      const configFile = path.join(scratch, "Pulumi.dev.yaml");
      await writeFile(configFile, stringify(file));
      const plan = await planStack({ stack: "dev", configFile });
      const messages = plan.report.violations.filter((v) => v.policy === "no-plain-secrets").map((v) => v.message);
      expect(messages.join("\n")).toMatch(/DATABASE_URL|a URL with its password/);
      expect(messages.join("\n")).toContain("a Service Bus SAS key");
      expect(messages.join("\n")).toContain("a live or test API key");
      expect(messages.join("\n")).toContain("a Stripe key");
      const json = JSON.stringify(plan.report);
      for (const value of Object.values(planted)) expect(json).not.toContain(value);
      for (const fragment of ["hunter2", "kb_live_8fJ2", "c2VjcmV0LWtleS12YWx1ZQ", "rk_live_51Hx"]) expect(json).not.toContain(fragment);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
