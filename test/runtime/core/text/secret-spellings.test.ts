// Every spelling of a secret that an SDK accepts is a secret to the kit (#44): property-based, each generated string
// first checked against the SDK's own parser (so the test proves what the SDK would read, not what we think it
// reads), then pushed through what an operator or `ps` sees: the one redaction (logs, errors, --print-settings,
// the data directory's holder file), the generated consumer's --print-settings, the CLI's refusal of a secret as
// a flag (a flag sits in /proc/<pid>/cmdline), telemetry's error attribute, and the lint rule's SARIF report.
import { parseServiceBusConnectionString } from "@azure/service-bus";
import { ESLint } from "eslint";
import fc from "fast-check";
import { parse as parsePostgresUrl } from "pg-connection-string";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import formatSarif from "../../../../eslint-plugin/src/formatters/sarif.js";
import plugin from "../../../../eslint-plugin/src/index.js";
import { errorTypeOf } from "../../../../runtime/telemetry/traced-work.js";
import { secretFlagValue } from "../../../../cli/secret-flag.js";
import { effectiveSettings } from "../../../../examples/generated-consumer/src/print-settings.js";
import { keyKind } from "../../../../runtime/stripe/key-destination.js";
import { redactSecrets } from "../../../../runtime/core/text/redact.js";

const runs = { numRuns: 300 };
const blank = fc.constantFrom("", " ", "\t", "  ", " \t ");
/** A SAS key: base64, sometimes with a space inside (the SDK trims only the ends). */
const sasKey = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9+/]{12,44}={0,2}$/),
  fc.tuple(fc.stringMatching(/^[A-Za-z0-9]{6,20}$/), fc.stringMatching(/^[A-Za-z0-9=]{6,20}$/)).map(([a, b]) => `${a} ${b}`),
);
/** A part written `name<ws>=<ws>value`, spaced as the SDK allows. */
const part = (name: string, value: fc.Arbitrary<string>) =>
  fc.tuple(blank, blank, blank, blank, value).map(([a, b, c, d, v]) => `${a}${name}${b}=${c}${v}${d}`);

const connectionString = fc
  .record({
    key: sasKey,
    endpoint: part("Endpoint", fc.constantFrom("sb://billing.servicebus.windows.net/", "sb://127.0.0.1:5672")),
    keyName: part("SharedAccessKeyName", fc.constantFrom("consumer", "RootManageSharedAccessKey")),
    order: fc.constantFrom([0, 1, 2], [2, 0, 1], [1, 2, 0], [0, 2, 1]),
    trailer: fc.constantFrom("", ";", "; ", ";;"),
    spacing: fc.tuple(blank, blank, blank, blank),
  })
  .map(({ key, endpoint, keyName, order, trailer, spacing: [a, b, c, d] }) => {
    const secret = `${a}SharedAccessKey${b}=${c}${key}${d}`;
    const parts = [endpoint, keyName, secret];
    return { key, text: order.map((index) => parts[index]).join(";") + trailer };
  })
  .filter(({ key, text }) => parseServiceBusConnectionString(text).sharedAccessKey === key.trim());

/** A password pg reads whole: raw "@" and ":" and spaces included; "/", "?", "#" and "%" end or change the URL. */
const password = fc.stringMatching(/^[A-Za-z0-9@:!$&'()*+,;=~._ -]{1,24}$/).filter((text) => text.trim() === text && /[A-Za-z0-9]/.test(text));
const postgresUrl = fc
  .record({ scheme: fc.constantFrom("postgres", "postgresql"), user: fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/), password, host: fc.constantFrom("db.internal", "127.0.0.1:5432", "[::1]:5432") })
  .map(({ scheme, user, password: secret, host }) => ({ secret, text: `${scheme}://${user}:${secret}@${host}/billing?application_name=consumer` }))
  .filter(({ secret, text }) => pgReads(text)?.password === secret);

/** pg's own reading, or undefined where pg refuses the URL (then it is no spelling pg accepts). */
function pgReads(text: string): { password?: string | undefined } | undefined {
  try {
    return parsePostgresUrl(text);
  } catch {
    return undefined;
  }
}

const stripeKey = fc
  .tuple(blank, fc.constantFrom("sk_live_", "rk_live_", "sk_test_", "rk_test_"), fc.stringMatching(/^[A-Za-z0-9]{16,40}$/), blank)
  .map(([before, prefix, body, after]) => ({ prefix, body, text: `${before}${prefix}${body}${after}` }));

/** The secret's characters that would leak it: the whole of it when long, else (short passwords) nothing to say. */
function leaks(output: string, secret: string): boolean {
  const core = secret.trim();
  return core.length >= 6 && output.includes(core);
}

function refusedAsFlag(flag: string, value: string): boolean {
  try {
    secretFlagValue({ flag, envName: "ENV_NAME", value, file: undefined });
    return false;
  } catch (error) {
    return /carries a secret/.test((error as Error).message);
  }
}

describe("a Service Bus key in any spelling @azure/service-bus accepts", () => {
  it("is hidden from the redaction whole and in a log line, refused as a flag, and kept out of --print-settings", () => {
    fc.assert(
      fc.property(connectionString, ({ key, text }) => {
        const secret = key.trim();
        expect(redactSecrets(text)).not.toContain(secret);
        expect(redactSecrets(`consumer: cannot reach the queue with ${text}`)).not.toContain(secret);
        expect(refusedAsFlag("--connection-string", text)).toBe(true);
        const printed = JSON.stringify(effectiveSettings({ SERVICEBUS_CONNECTION_STRING: text, STRIPE_API_KEY: "rk_test_sandbox" }));
        expect(printed).not.toContain(secret);
        // A span's error.type and status: the error's type, never its text.
        expect(errorTypeOf(new Error(`cannot connect with ${text}`))).toBe("Error");
      }),
      runs,
    );
  });

  it("is the key the SDK reads: the review's spellings among them", () => {
    for (const text of ["SharedAccessKey =K3yK3yK3y", "SharedAccessKey= K3yK3yK3y", "SharedAccessKey\t=K3yK3yK3y"]) {
      const whole = `Endpoint=sb://billing.servicebus.windows.net/;SharedAccessKeyName=consumer;${text}`;
      expect(parseServiceBusConnectionString(whole).sharedAccessKey).toBe("K3yK3yK3y");
      expect(redactSecrets(whole)).not.toContain("K3yK3yK3y");
      expect(redactSecrets(whole)).toContain("SharedAccessKeyName=consumer");
    }
  });
});

describe("a PostgreSQL password in any spelling pg accepts", () => {
  it("is hidden whole (a raw @ included), refused as a flag, and kept out of --print-settings", () => {
    fc.assert(
      fc.property(postgresUrl, ({ secret, text }) => {
        const redacted = redactSecrets(text);
        expect(leaks(redacted, secret), redacted).toBe(false);
        expect(redacted).toMatch(/^postgres(ql)?:\/\/\[redacted\]@/);
        expect(refusedAsFlag("--database-url", text)).toBe(true);
        const printed = JSON.stringify(effectiveSettings({ DATABASE_URL: text, STRIPE_API_KEY: "rk_test_sandbox" }));
        expect(leaks(printed, secret), printed).toBe(false);
      }),
      runs,
    );
  });

  it("hides the review's password with a raw @ and keeps the host", () => {
    const url = "postgres://billing:Held@Out@db.internal/billing";
    expect(parsePostgresUrl(url).password).toBe("Held@Out");
    expect(redactSecrets(url)).toBe("postgres://[redacted]@db.internal/billing");
  });
});

describe("a Stripe key with whitespace around it", () => {
  it("is classified by what it is and redacted past its prefix", () => {
    fc.assert(
      fc.property(stripeKey, ({ prefix, body, text }) => {
        expect(keyKind(text)).toBe(prefix.includes("live") ? "stripe-live" : "test");
        const redacted = redactSecrets(`STRIPE_API_KEY=${text}`) + redactSecrets(text);
        expect(redacted).not.toContain(body);
      }),
      runs,
    );
  });
});

describe("a Stripe key written in source, in any spelling", () => {
  it("is reported in SARIF by its prefix only (real ESLint, the plugin's rule and formatter)", async () => {
    const eslint = new ESLint({ cwd: process.cwd(), overrideConfigFile: true, overrideConfig: [{ files: ["**/*.ts"] }, tseslint.configs.base, plugin.configs.recommended] });
    await fc.assert(
      fc.asyncProperty(stripeKey.filter(({ prefix }) => prefix.startsWith("sk_") || prefix.startsWith("rk_")), async ({ body, text }) => {
        const results = await eslint.lintText(`export const key = ${JSON.stringify(text)};\n`, { filePath: "src/settings.ts" });
        expect(results[0]?.messages.some((message) => message.ruleId === "chargeguard/no-stripe-secret-literal")).toBe(true);
        const sarif = formatSarif(results, { cwd: process.cwd(), rulesMeta: eslint.getRulesMetaForResults(results) });
        expect(sarif).not.toContain(body);
      }),
      { numRuns: 25 },
    );
  }, 60_000);
});
