import rule from "../../src/rules/no-stripe-secret-literal.js";
import { ruleTester } from "../rule-tester.js";

// Built at run time so this file holds no string that looks like a key.
const body = "a1B2c3D4".repeat(3);
const liveSecret = ["sk", "live", body].join("_");
const testRestricted = ["rk", "test", body].join("_");
const testSecret = ["sk", "test", body].join("_");

ruleTester.run("no-stripe-secret-literal", rule, {
  valid: [
    { name: "the sandbox's short fake key", code: `const stripeKey = "rk_test_sandbox";` },
    { name: "a bare prefix in prose", code: `const help = "Secret keys start with sk_live_ or rk_live_; test keys with sk_test_.";` },
    { name: "a key read from the environment", code: `const key = process.env.STRIPE_SECRET_KEY;` },
    { name: "a prefix check", code: `export const isLive = (key: string) => key.startsWith("sk_live_");` },
    { name: "publishable keys are public", code: `const pk = "${["pk", "live", body].join("_")}";` },
  ],
  invalid: [
    {
      name: "a live secret key",
      code: `const stripe = new Stripe("${liveSecret}");`,
      errors: [
        {
          messageId: "keyLiteral",
          data: { kind: "secret", prefix: "sk_live_" },
          suggestions: [{ messageId: "readFromEnvironment", data: { env: "STRIPE_SECRET_KEY" }, output: `const stripe = new Stripe(process.env.STRIPE_SECRET_KEY);` }],
        },
      ],
    },
    {
      name: "a restricted test key in a template literal",
      code: `const config = { apiKey: \`${testRestricted}\` };`,
      errors: [
        {
          messageId: "keyLiteral",
          data: { kind: "restricted", prefix: "rk_test_" },
          suggestions: [
            { messageId: "readFromEnvironment", data: { env: "STRIPE_RESTRICTED_KEY" }, output: `const config = { apiKey: process.env.STRIPE_RESTRICTED_KEY };` },
          ],
        },
      ],
    },
    {
      name: "a key inside a longer string (no suggestion: the string is not only the key)",
      code: `const header = "Bearer ${testSecret}";`,
      errors: [{ messageId: "keyLiteral", data: { kind: "secret", prefix: "sk_test_" }, suggestions: [] }],
    },
    {
      name: "CommonJS",
      filename: "config.cjs",
      code: `module.exports = { stripeKey: '${liveSecret}' };`,
      languageOptions: { parserOptions: { sourceType: "script" } },
      errors: [
        {
          messageId: "keyLiteral",
          data: { kind: "secret", prefix: "sk_live_" },
          suggestions: [{ messageId: "readFromEnvironment", data: { env: "STRIPE_SECRET_KEY" }, output: `module.exports = { stripeKey: process.env.STRIPE_SECRET_KEY };` }],
        },
      ],
    },
  ],
});
