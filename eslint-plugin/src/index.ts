import { createRequire } from "node:module";
import type { TSESLint } from "@typescript-eslint/utils";
import type { ESLint, Linter } from "eslint";
import lockRenewalCoversStripe from "./rules/lock-renewal-covers-stripe.js";
import noAbandonOnStripeError from "./rules/no-abandon-on-stripe-error.js";
import noReceiveAndDelete from "./rules/no-receive-and-delete.js";
import noStripeSecretLiteral from "./rules/no-stripe-secret-literal.js";
import recordBeforeSettle from "./rules/record-before-settle.js";
import requireIdempotencyKey from "./rules/require-idempotency-key.js";
import stableIdempotencyKey from "./rules/stable-idempotency-key.js";

const { name, version } = createRequire(import.meta.url)("../package.json") as { name: string; version: string };

const rules = {
  "stable-idempotency-key": stableIdempotencyKey,
  "no-abandon-on-stripe-error": noAbandonOnStripeError,
  "require-idempotency-key": requireIdempotencyKey,
  "record-before-settle": recordBeforeSettle,
  "lock-renewal-covers-stripe": lockRenewalCoversStripe,
  "no-receive-and-delete": noReceiveAndDelete,
  "no-stripe-secret-literal": noStripeSecretLiteral,
} satisfies Record<string, TSESLint.RuleModule<string, readonly unknown[]>>;

export type RuleName = keyof typeof rules;

/** Rules whose reports the type checker can confirm (they take `{ typeChecked: true }`). */
const TYPE_AWARE: readonly RuleName[] = [
  "stable-idempotency-key",
  "no-abandon-on-stripe-error",
  "require-idempotency-key",
  "record-before-settle",
  "no-receive-and-delete",
];

/** ESLint's own config type, so `defineConfig(chargeguard.configs.recommended)` type-checks in an eslint.config.ts. */
type Config = Linter.Config;

interface ChargeguardPlugin {
  meta: { name: string; version: string };
  rules: typeof rules;
  configs: { recommended: Config; "recommended-type-checked": Config };
}

const ruleNames = Object.keys(rules) as RuleName[];

const plugin: ChargeguardPlugin = {
  meta: { name, version },
  rules,
  configs: {} as ChargeguardPlugin["configs"],
};

plugin.configs.recommended = {
  name: "chargeguard/recommended",
  plugins: { chargeguard: plugin as unknown as ESLint.Plugin },
  rules: Object.fromEntries(ruleNames.map((rule) => [`chargeguard/${rule}`, "error"])),
};

/**
 * The same rules, confirming with type information that receivers, messages and clients are the SDKs' types.
 * Needs typed linting (`languageOptions.parserOptions.projectService: true`); without a program it behaves like
 * `recommended`.
 */
plugin.configs["recommended-type-checked"] = {
  name: "chargeguard/recommended-type-checked",
  plugins: { chargeguard: plugin as unknown as ESLint.Plugin },
  rules: Object.fromEntries(
    ruleNames.map((rule) => [`chargeguard/${rule}`, TYPE_AWARE.includes(rule) ? ["error", { typeChecked: true }] : "error"]),
  ),
};

export default plugin;
