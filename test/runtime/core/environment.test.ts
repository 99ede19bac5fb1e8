// The runtime's one reader of the environment (runtime/core/environment.ts): each variable parsed once there, and
// the lint config refusing process.env anywhere else in the runtime (real ESLint, the repository's own config).
import path from "node:path";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import { afterEach, describe, expect, it, vi } from "vitest";
import { consumerVariables, runtimeEnvironment } from "../../../runtime/core/environment.js";

const root = path.resolve(import.meta.dirname, "../../..");

describe("the runtime's environment", () => {
  it("reads each variable once, as its documentation says: empty is unset, a bad number stays visible as NaN", () => {
    expect(runtimeEnvironment({})).toEqual({
      stripeRequestsPerSecond: undefined,
      serviceBusNamespace: undefined,
      stripeStartCheck: true,
      stripeAllowedOrigins: "",
      stripeApiKey: undefined,
    });
    const read = runtimeEnvironment({
      STRIPE_REQUESTS_PER_SECOND: " 12.5 ",
      SERVICEBUS_FULLY_QUALIFIED_NAMESPACE: "ns.servicebus.windows.net",
      STRIPE_START_CHECK: " Off ",
      STRIPE_ALLOWED_ORIGINS: " https://vault.example ",
      STRIPE_API_KEY: "rk_test_1",
    });
    expect(read).toEqual({
      stripeRequestsPerSecond: 12.5,
      serviceBusNamespace: "ns.servicebus.windows.net",
      stripeStartCheck: false,
      stripeAllowedOrigins: "https://vault.example",
      stripeApiKey: "rk_test_1",
    });
    expect(runtimeEnvironment({ STRIPE_REQUESTS_PER_SECOND: "lots", SERVICEBUS_FULLY_QUALIFIED_NAMESPACE: "" })).toMatchObject({
      stripeRequestsPerSecond: Number.NaN,
      serviceBusNamespace: undefined,
    });
  });

  it("is read nowhere else in the runtime or the CLI: the lint config refuses process.env outside the reader", async () => {
    const eslint = new ESLint({ cwd: root });
    const code = 'export const perSecond = process.env.STRIPE_REQUESTS_PER_SECOND;\n';
    const rules = async (file: string) =>
      (await eslint.lintText(code, { filePath: path.join(root, file) }))[0]!.messages.map((message) => message.ruleId);
    for (const file of ["runtime/consumer/new-part.ts", "cli/commands/reconcile.ts", "cli/commands/dlq.ts", "cli/commands/audit.ts"]) {
      expect(await rules(file), file).toContain("no-restricted-properties");
    }
    expect(await rules("runtime/core/environment.ts")).not.toContain("no-restricted-properties");
  });
});

describe("the consumer's environment", () => {
  // The generated consumers (rendered from templates/files) lint with their own config, the one a team gets: this
  // lints their sources for process.env alone, so config.ts, print-settings.ts and main.ts read through the runtime.
  it("is read by the generated consumers only through chargeguard/runtime's reader", async () => {
    const rule = { object: "process", property: "env" };
    const eslint = new ESLint({
      cwd: root,
      overrideConfigFile: true,
      overrideConfig: [{ files: ["**/*.ts"], languageOptions: { parser: tseslint.parser }, rules: { "no-restricted-properties": ["error", rule] } }],
    });
    const results = await eslint.lintFiles(["examples/generated-consumer*/src/**/*.ts"]);
    expect(results.map((result) => path.basename(result.filePath))).toEqual(expect.arrayContaining(["config.ts", "main.ts", "print-settings.ts"]));
    const readers = results.flatMap((result) => result.messages.map((message) => `${path.relative(root, result.filePath)}:${message.line} ${message.message}`));
    expect(readers).toEqual([]);
  });

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("reads the consumer's variables by name, trimmed, an empty one unset, nothing else", () => {
    const read = consumerVariables({
      SERVICEBUS_QUEUE: " usage-billing ",
      DATABASE_URL: "",
      STRIPE_API_KEY: "rk_test_1\n",
      KEYBRAKE_URL: "   ",
      BILLING_PERIOD_CAP_CENTS: "5000",
      HOME: "/home/someone",
    });
    expect(read).toEqual({ SERVICEBUS_QUEUE: "usage-billing", STRIPE_API_KEY: "rk_test_1", BILLING_PERIOD_CAP_CENTS: "5000" });
  });

  it("reads the process's environment when handed none", () => {
    vi.stubEnv("KEYBRAKE_API_KEY", " kb_test ");
    vi.stubEnv("STRIPE_API_BASE", "http://127.0.0.1:12111");
    expect(consumerVariables()).toMatchObject({ KEYBRAKE_API_KEY: "kb_test", STRIPE_API_BASE: "http://127.0.0.1:12111" });
  });
});
