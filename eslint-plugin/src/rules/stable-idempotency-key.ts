import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { createRule } from "../create-rule.js";
import { isTestFile } from "../utils/test-file.js";
import { analysisFor, type Analysis } from "../utils/analysis.js";
import { importedFunction } from "../utils/imported-function.js";
import { consequenceOf } from "../utils/consequence.js";
import { withFileIndex } from "../utils/file-index.js";
import { idempotencyKeyOf, isIdempotencyHeaderName, meterIdentifierOf } from "../utils/idempotency-key.js";
import { repeatWording } from "../utils/message-context.js";
import { staticName } from "../utils/static-name.js";
import { deliveryKeyExpression, guardKeyExpression, withStableKeyImport } from "../utils/stable-key-fix.js";
import { stripeCall, type StripeCall } from "../utils/stripe-call.js";
import { typeCheckedSchema, type TypeCheckedOption } from "../utils/type-checked-option.js";
import { billingIdentitiesOf, kitIdentitiesOf, type KitIdentity } from "./stable-idempotency-key/kit-identity.js";
import { mayReachStripe } from "./stable-idempotency-key/request-url.js";
import { unstableSourceOf } from "./stable-idempotency-key/unstable-source.js";

export default createRule<[TypeCheckedOption], "unstableKey" | "unstableIdentifier" | "unstableIdentity" | "useStableKey" | "useGuardKey">({
  name: "stable-idempotency-key",
  meta: {
    type: "problem",
    hasSuggestions: true,
    docs: {
      description:
        "Require Stripe idempotency keys and meter event identifiers that stay the same when Service Bus redelivers or a message is resubmitted",
      recommended: true,
    },
    messages: {
      unstableKey:
        "This idempotency key of {{call}} derives from {{source}}: {{why}}, and Stripe then {{consequence}}. Derive the key from the event's business fields (customer, billing period, amount) only.",
      unstableIdentifier:
        "This Billing Meter event identifier derives from {{source}}: {{why}}, and Stripe then counts the usage again. Derive the identifier from the event's business fields (customer, meter, usage period) only.",
      unstableIdentity:
        "This {{what}} derives from {{source}}: {{why}}, and the guard then opens a second record for the same billing event, so Stripe charges again. Name the event's business fields (customer, billing period, order or invoice id) only.",
      useGuardKey:
        "Use the idempotency key the guard hands this callback ({{key}}): the billing record and Stripe then share one key, derived from the identity the guard was given.",
      useStableKey:
        "Key this call on the delivery's business payload with stableKey() from chargeguard/runtime (two deliveries with the same payload then count as one for Stripe's 24 hours: the payload must identify one billing event, such as an invoice or an order and its period).",
    },
    schema: [typeCheckedSchema],
    defaultOptions: [{ typeChecked: false }],
  },
  create(context, [options]) {
    // A test runs against mocks or Stripe's test mode: no money moves twice (utils/test-file.ts).
    if (isTestFile(context.filename)) return {};
    const analysis = analysisFor(context, options.typeChecked === true);
    const reported = new Set<TSESTree.Node>();

    function check(key: TSESTree.Node, kind: "key" | "identifier" = "key", call?: { node: TSESTree.CallExpression; info: StripeCall }): void {
      if (reported.has(key)) return;
      reported.add(key);
      const source = unstableSourceOf(analysis, key);
      if (!source) return;
      const why = source.why.replace("{repeat}", repeatWording(analysis));
      if (kind === "key") {
        // Only a key written in the call's own arguments is replaced: shared options may serve other calls.
        const inCall = call && call.node.range[0] <= key.range[0] && key.range[1] <= call.node.range[1];
        const read = source.node.type === AST_NODE_TYPES.MemberExpression ? source.node : null;
        // Inside guard.run's work, the guard's own key comes first: no hash of the body where the guard already keyed one.
        const guardKey = inCall ? guardKeyExpression(call.node) : null;
        const replacement = !guardKey && inCall && read ? deliveryKeyExpression(analysis, call.node, call.info, read.object, staticName(read) ?? "") : null;
        context.report({
          node: madeInAnotherModule(analysis, key) && call ? call.node : key,
          messageId: "unstableKey",
          data: { source: source.source, why, ...callWording(call?.info) },
          suggest: guardKey
            ? [{ messageId: "useGuardKey", data: { key: guardKey }, fix: (fixer) => fixer.replaceText(key, guardKey) }]
            : replacement
              ? [{ messageId: "useStableKey", fix: (fixer) => withStableKeyImport(analysis, fixer, fixer.replaceText(key, replacement)) }]
              : [],
        });
      } else {
        context.report({ node: key, messageId: "unstableIdentifier", data: { source: source.source, why: why.replace(/\bkey\b/, "identifier") } });
      }
    }

    /** chargeguard's own identity inputs (guard.run's key, toBilling, stableKey's fields), checked like a Stripe key. */
    function checkIdentity({ node, what }: KitIdentity): void {
      if (reported.has(node)) return;
      reported.add(node);
      const source = unstableSourceOf(analysis, node);
      if (source) context.report({ node, messageId: "unstableIdentity", data: { what, source: source.source, why: source.why.replace("{repeat}", repeatWording(analysis)) } });
    }

    // Looked at when the file has been traversed: the analyses read the file's index, complete by then.
    const calls: TSESTree.CallExpression[] = [];
    const headers: TSESTree.Property[] = [];
    const billings: (TSESTree.Property | TSESTree.MethodDefinition)[] = [];
    return withFileIndex(context.sourceCode, {
      CallExpression(node) {
        if (node.arguments.length > 0) calls.push(node);
      },
      MethodDefinition(node) {
        if (staticName(node) === "toBilling") billings.push(node);
      },
      // `Idempotency-Key` headers on a request that may reach Stripe (fetch to api.stripe.com, stripe-node's `headers`).
      Property(node) {
        if (staticName(node) === "toBilling") billings.push(node);
        if (node.key.type !== AST_NODE_TYPES.Literal) return;
        const name = staticName(node);
        if (name !== null && isIdempotencyHeaderName(name)) headers.push(node);
      },
      "Program:exit"() {
        for (const node of calls) kitIdentitiesOf(analysis, node).forEach(checkIdentity);
        for (const node of billings) billingIdentitiesOf(analysis, node).forEach(checkIdentity);
        for (const node of calls) {
          if (node.callee.type !== AST_NODE_TYPES.MemberExpression) continue;
          // Any request on a Stripe resource that carries a key (`subscriptionItems.createUsageRecord` too);
          // stripeCall exits early on names.
          const info = stripeCall(analysis, node);
          if (!info) continue;
          const lookup = idempotencyKeyOf(analysis, node, info);
          if (lookup.kind === "found" || lookup.kind === "partial") lookup.keys.forEach((key) => check(key, "key", { node, info }));
          const identifier = meterIdentifierOf(analysis, node, info);
          if (identifier?.kind === "found" || identifier?.kind === "partial") identifier.keys.forEach((key) => check(key, "identifier"));
        }
        for (const header of headers) if (mayReachStripe(context.sourceCode, header)) check(header.value);
      },
    });
  },
});

/**
 * A key or options made by a function of another module (`create(params, requestOptions())`): the finding goes on the
 * Stripe call, where a reviewer sees what repeats, not on a line of its arguments that shows no key (#42).
 */
function madeInAnotherModule(analysis: Analysis, key: TSESTree.Node): boolean {
  return key.type === AST_NODE_TYPES.CallExpression && importedFunction(analysis, key.callee) !== null;
}

/** The call a key belongs to, by name, and what its repeat does; a bare header names the request only. */
function callWording(info: StripeCall | undefined): { call: string; consequence: string } {
  if (!info) return { call: "this request", consequence: "runs it again" };
  return { call: `${info.resource}.${info.method}()`, consequence: consequenceOf(info.resource, info.method, info.moneyMoving) };
}
