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

/** What the configs read from a rule: whether it is recommended and whether its options take `typeChecked`. */
interface RuleMetadata {
  meta: { docs?: { recommended?: boolean }; defaultOptions?: readonly unknown[] };
}

/** Rules whose reports the type checker can confirm: their default options carry `typeChecked`. */
function isTypeAware(rule: RuleMetadata): boolean {
  const [options] = rule.meta.defaultOptions ?? [];
  return typeof options === "object" && options !== null && "typeChecked" in options;
}

/** ESLint's own config type, so `defineConfig(chargeguard.configs.recommended)` type-checks in an eslint.config.ts. */
type Config = Linter.Config;

interface ChargeguardPlugin {
  meta: { name: string; version: string };
  rules: typeof rules;
  configs: { recommended: Config; "recommended-type-checked": Config };
}

// typescript-eslint's house style: the rules' metadata, not a list kept beside them, decides what each config turns on.
const recommended = (Object.entries(rules) as [RuleName, RuleMetadata][]).filter(([, rule]) => rule.meta.docs?.recommended === true);

const plugin: ChargeguardPlugin = {
  meta: { name, version },
  rules,
  configs: {} as ChargeguardPlugin["configs"],
};

plugin.configs.recommended = {
  name: "chargeguard/recommended",
  plugins: { chargeguard: plugin as unknown as ESLint.Plugin },
  rules: Object.fromEntries(recommended.map(([name]) => [`chargeguard/${name}`, "error"])),
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
    recommended.map(([name, rule]) => [`chargeguard/${name}`, isTypeAware(rule) ? ["error", { typeChecked: true }] : "error"]),
  ),
};

export default plugin;
