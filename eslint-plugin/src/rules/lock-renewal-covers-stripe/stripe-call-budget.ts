import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import { bindingOf } from "../../utils/binding.js";
import { staticName } from "../../utils/static-name.js";
import { staticNumber } from "./static-number.js";
import { unwrap } from "../../utils/unwrap.js";

/** stripe-node's defaults (stripe 23): 80 s per attempt, 2 retries. */
export const STRIPE_DEFAULT_TIMEOUT_MS = 80_000;
export const STRIPE_DEFAULT_MAX_NETWORK_RETRIES = 2;
/** stripe-node 23 waits at most `min(0.5 s x 2^(n-1), 5 s)` before retry n (its jitter only shortens the wait). */
const INITIAL_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 5_000;

/**
 * The longest one Stripe call can take: every attempt times out, with the SDK's longest backoff between them.
 * A copy of `worstCaseStripeMs` in chargeguard/tuning (this package imports nothing of the others):
 * test/eslint-plugin/stripe-call-budget.test.ts proves the two equal over a grid of inputs.
 */
export function worstCaseCallMs(timeoutMs: number, maxNetworkRetries: number): number {
  let backoff = 0;
  let retry = 1;
  for (; retry <= maxNetworkRetries; retry++) {
    const delay = INITIAL_RETRY_DELAY_MS * 2 ** (retry - 1);
    if (delay >= MAX_RETRY_DELAY_MS) break;
    backoff += delay;
  }
  // Every later retry waits the cap: counted, not looped (a written `maxNetworkRetries: 1e9` must not hang the lint).
  backoff += Math.max(0, maxNetworkRetries - retry + 1) * MAX_RETRY_DELAY_MS;
  return timeoutMs * (maxNetworkRetries + 1) + backoff;
}

/**
 * The worst-case call duration a Stripe client constructed as `new Stripe(key, options)` allows, from the options
 * written there (stripe-node's defaults for the rest; a spread of configuration is not followed), or `null` when a
 * written `timeout` or `maxNetworkRetries` is not known statically.
 */
export function clientBudgetMs(sourceCode: Readonly<TSESLint.SourceCode>, construction: TSESTree.NewExpression | TSESTree.CallExpression): number | null {
  const optionsArgument = construction.arguments[1];
  if (!optionsArgument) return worstCaseCallMs(STRIPE_DEFAULT_TIMEOUT_MS, STRIPE_DEFAULT_MAX_NETWORK_RETRIES);
  const options = objectLiteral(sourceCode, optionsArgument);
  if (!options) return null;
  let timeout: number | null = STRIPE_DEFAULT_TIMEOUT_MS;
  let retries: number | null = STRIPE_DEFAULT_MAX_NETWORK_RETRIES;
  for (const property of options.properties) {
    if (property.type === AST_NODE_TYPES.SpreadElement) continue;
    const name = staticName(property);
    if (name === "timeout") timeout = staticNumber(sourceCode, property.value);
    if (name === "maxNetworkRetries") retries = staticNumber(sourceCode, property.value);
  }
  return timeout === null || retries === null ? null : worstCaseCallMs(timeout, retries);
}

function objectLiteral(sourceCode: Readonly<TSESLint.SourceCode>, node: TSESTree.Node): TSESTree.ObjectExpression | null {
  const target = unwrap(node);
  if (target.type === AST_NODE_TYPES.ObjectExpression) return target;
  if (target.type !== AST_NODE_TYPES.Identifier) return null;
  const declarator = bindingOf(sourceCode, target)?.definition.node;
  if (declarator?.type === AST_NODE_TYPES.VariableDeclarator && declarator.id.type === AST_NODE_TYPES.Identifier && declarator.init) {
    return objectLiteral(sourceCode, declarator.init);
  }
  return null;
}
