import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import { createRule } from "../create-rule.js";
import { isTestFile } from "../utils/test-file.js";
import { analysisFor } from "../utils/analysis.js";
import { withFileIndex } from "../utils/file-index.js";
import { unwrap as unwrapValue } from "../utils/unwrap.js";
import { moduleOrigin } from "../utils/module-origin.js";
import { isReceiverOptions, readsDeadLetters } from "./lock-renewal-covers-stripe/receiver-options.js";
import { calleeName } from "../utils/static-name.js";
import { staticNumber } from "./lock-renewal-covers-stripe/static-number.js";
import { isMoneyMovingCall } from "../utils/stripe-call.js";
import { clientBudgetMs, STRIPE_DEFAULT_MAX_NETWORK_RETRIES, STRIPE_DEFAULT_TIMEOUT_MS, worstCaseCallMs } from "./lock-renewal-covers-stripe/stripe-call-budget.js";

export interface LockRenewalOptions {
  /** The longest one Stripe call may take in this code base, in ms (overrides what the file's clients imply). */
  stripeCallBudgetMs?: number;
  /** The queue's LockDuration in ms: when one lock outlasts the Stripe budget, no renewal is needed (0 is right). */
  lockDurationMs?: number;
}

const OPTION = "maxAutoLockRenewalDurationInMs";

export default createRule<[LockRenewalOptions], "renewalDisabled" | "renewalTooShort" | "raiseRenewal">({
  name: "lock-renewal-covers-stripe",
  meta: {
    type: "problem",
    hasSuggestions: true,
    docs: {
      description: "Require Service Bus lock renewal to outlast the worst-case duration of a Stripe call",
      recommended: true,
    },
    messages: {
      renewalDisabled:
        "maxAutoLockRenewalDurationInMs: 0 turns lock renewal off: a Stripe call that outlasts the queue's lock lets another consumer receive the message and charge again. Renew for at least {{budget}} ms ({{basis}}), or, if the queue's lock alone outlasts that, give the rule the queue's lockDurationMs ({{lock}}).",
      renewalTooShort:
        "maxAutoLockRenewalDurationInMs is {{value}} ms, shorter than one Stripe call can take ({{budget}} ms: {{basis}}): renewal stops while the charge is in flight, the lock lapses and another consumer charges again.",
      raiseRenewal: "Renew for {{budget}} ms.",
    },
    schema: [
      {
        type: "object",
        properties: {
          stripeCallBudgetMs: {
            type: "number",
            minimum: 1,
            description: "The longest one Stripe call may take in your code base, in ms; overrides the budget derived from the Stripe client options in the file.",
          },
          lockDurationMs: {
            type: "number",
            minimum: 1,
            description: "The queue's LockDuration in ms (`chargeguard plan`'s LOCK); when it outlasts the Stripe budget, no renewal is needed and any deadline, 0 included, is accepted.",
          },
        },
        additionalProperties: false,
      },
    ],
    defaultOptions: [{}],
  },
  create(context, [options]) {
    // A test runs against mocks or Stripe's test mode: no money moves twice (utils/test-file.ts).
    if (isTestFile(context.filename)) return {};
    const sourceCode = context.sourceCode;
    const analysis = analysisFor(context, false);
    const renewals: TSESTree.Property[] = [];
    // Calls are only looked at when the file sets a renewal (most files set none): kept until the end of the file.
    const calls: (TSESTree.NewExpression | TSESTree.CallExpression)[] = [];
    const collect = (node: TSESTree.NewExpression | TSESTree.CallExpression): void => {
      calls.push(node);
    };

    return withFileIndex(context.sourceCode, {
      NewExpression: collect,
      CallExpression: collect,
      Property(node) {
        if (node.key.type !== AST_NODE_TYPES.Identifier || node.key.name !== OPTION || node.computed) return;
        const options = node.parent;
        if (options.type === AST_NODE_TYPES.ObjectExpression && isReceiverOptions(sourceCode, options) && !readsDeadLetters(sourceCode, options)) renewals.push(node);
      },
      "Program:exit"() {
        if (renewals.length === 0) return;
        const clients = calls.filter((call) => isStripeConstruction(sourceCode, call));
        // Only receivers that bill need renewal covering a Stripe call: the file charges or holds a Stripe client.
        const movesMoney = calls.some((call) => call.type === AST_NODE_TYPES.CallExpression && isMoneyMovingCall(analysis, call));
        if (!movesMoney && clients.length === 0 && !/(["'])stripe\1/.test(sourceCode.text)) return;
        for (const property of renewals) {
          const renewal = renewalValue(sourceCode, property.value);
          if (renewal === null) continue;
          const value = renewal.ms;
          const needed = stripeBudget(options, sourceCode, clients);
          // One lock that outlasts the call needs no renewal: `chargeguard plan` answers 0 then, and 0 is right.
          const neededMs = needed?.ms ?? worstCaseCallMs(STRIPE_DEFAULT_TIMEOUT_MS, STRIPE_DEFAULT_MAX_NETWORK_RETRIES);
          if (options.lockDurationMs !== undefined && options.lockDurationMs >= neededMs) continue;
          if (value === 0) {
            const data = {
              budget: String(neededMs),
              basis: needed?.basis ?? "stripe-node's defaults",
              lock: options.lockDurationMs === undefined ? "none given" : `${options.lockDurationMs} ms given is shorter`,
            };
            context.report({ node: property, messageId: "renewalDisabled", data, suggest: [raise(property, renewal.node, data.budget)] });
          } else if (needed && value < needed.ms) {
            const data = { value: String(value), budget: String(needed.ms), basis: needed.basis };
            context.report({ node: property, messageId: "renewalTooShort", data, suggest: [raise(property, renewal.node, data.budget)] });
          }
        }
      },
    });
  },
});

/** `new Stripe(...)`, `Stripe(...)`, `require("stripe")(...)`: a client whose options set the budget. */
function isStripeConstruction(sourceCode: Readonly<TSESLint.SourceCode>, node: TSESTree.NewExpression | TSESTree.CallExpression): boolean {
  const name = calleeName(node);
  if (node.callee.type !== AST_NODE_TYPES.CallExpression && (name === null || !/stripe/i.test(name))) return false;
  const origin = moduleOrigin(sourceCode, node.callee);
  return origin?.module === "stripe" && (origin.path.length === 0 || origin.path[0] === "Stripe");
}

/** The longest one Stripe call may take: the configured budget, the file's Stripe clients' options, or the SDK's defaults. */
function stripeBudget(
  options: LockRenewalOptions,
  sourceCode: Readonly<TSESLint.SourceCode>,
  clients: (TSESTree.NewExpression | TSESTree.CallExpression)[],
): { ms: number; basis: string } | null {
  if (options.stripeCallBudgetMs !== undefined) return { ms: options.stripeCallBudgetMs, basis: "the configured stripeCallBudgetMs" };
  if (clients.length === 0) {
    return {
      ms: worstCaseCallMs(STRIPE_DEFAULT_TIMEOUT_MS, STRIPE_DEFAULT_MAX_NETWORK_RETRIES),
      basis: "stripe-node's defaults: 3 attempts of 80 s plus 1.5 s of backoff",
    };
  }
  const budgets = clients.map((client) => clientBudgetMs(sourceCode, client));
  if (budgets.some((value) => value === null)) return null;
  return { ms: Math.max(...(budgets as number[])), basis: "timeout x (maxNetworkRetries + 1) plus backoff of the Stripe client in this file" };
}

/** The suggestion that raises the renewal to the budget (a shorthand property gets its value written out). */
function raise(property: TSESTree.Property, value: TSESTree.Node, budgetMs: string) {
  return {
    messageId: "raiseRenewal" as const,
    data: { budget: budgetMs },
    fix: (fixer: TSESLint.RuleFixer) =>
      property.shorthand ? fixer.replaceText(property, `${OPTION}: ${budgetMs}`) : fixer.replaceText(value, budgetMs),
  };
}

/** The value, or the fallback the code states for it (`settings.renewMs ?? 60_000`), with the node that holds it. */
function renewalValue(sourceCode: Readonly<TSESLint.SourceCode>, node: TSESTree.Node): { ms: number; node: TSESTree.Node } | null {
  const exact = staticNumber(sourceCode, node);
  if (exact !== null) return { ms: exact, node };
  const value = unwrapValue(node);
  return value.type === AST_NODE_TYPES.LogicalExpression && value.operator !== "&&" ? renewalValue(sourceCode, value.right) : null;
}
