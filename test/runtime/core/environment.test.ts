// The runtime's one reader of the environment (runtime/core/environment.ts): each variable parsed once there, and
// the lint config refusing process.env anywhere else in the runtime (real ESLint, the repository's own config).
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { runtimeEnvironment } from "../../../runtime/core/environment.js";

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

  it("is read nowhere else in the runtime: the lint config refuses process.env outside the reader", async () => {
    const eslint = new ESLint({ cwd: root });
    const code = 'export const perSecond = process.env.STRIPE_REQUESTS_PER_SECOND;\n';
    const rules = async (file: string) =>
      (await eslint.lintText(code, { filePath: path.join(root, file) }))[0]!.messages.map((message) => message.ruleId);
    expect(await rules("runtime/consumer/new-part.ts")).toContain("no-restricted-properties");
    expect(await rules("runtime/core/environment.ts")).not.toContain("no-restricted-properties");
  });
});
