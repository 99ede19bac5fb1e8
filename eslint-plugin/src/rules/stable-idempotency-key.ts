import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { createRule } from "../create-rule.js";
import { analysisFor } from "../utils/analysis.js";
import { idempotencyKeyOf, isIdempotencyHeaderName } from "../utils/idempotency-key.js";
import { handlesMessages } from "../utils/message-context.js";
import { staticName } from "../utils/static-name.js";
import { stripeCall } from "../utils/stripe-call.js";
import { typeCheckedSchema, type TypeCheckedOption } from "../utils/type-checked-option.js";
import { unstableSourceOf } from "../utils/unstable-source.js";

export default createRule<[TypeCheckedOption], "unstableKey">({
  name: "stable-idempotency-key",
  meta: {
    type: "problem",
    docs: {
      description: "Require Stripe idempotency keys that stay the same when Service Bus redelivers or a message is resubmitted",
      recommended: true,
    },
    messages: {
      unstableKey:
        "This Stripe idempotency key derives from {{source}}: {{why}}, and Stripe then charges again. Derive the key from the event's business fields (customer, billing period, amount) only.",
    },
    schema: [typeCheckedSchema],
    defaultOptions: [{ typeChecked: false }],
  },
  create(context, [options]) {
    const analysis = analysisFor(context, options.typeChecked === true);
    const reported = new Set<TSESTree.Node>();

    function check(key: TSESTree.Node): void {
      if (reported.has(key)) return;
      reported.add(key);
      const source = unstableSourceOf(analysis, key);
      if (!source) return;
      const why = handlesMessages(analysis) ? source.why : source.whyElsewhere;
      context.report({ node: key, messageId: "unstableKey", data: { source: source.source, why } });
    }

    return {
      CallExpression(node) {
        if (node.callee.type !== AST_NODE_TYPES.MemberExpression || node.arguments.length === 0) return;
        // Any request on a Stripe resource that carries a key (`subscriptionItems.createUsageRecord` too); stripeCall
        // exits early on names.
        const info = stripeCall(analysis, node);
        if (!info) return;
        const lookup = idempotencyKeyOf(analysis, node, info);
        if (lookup.kind === "found" || lookup.kind === "partial") lookup.keys.forEach(check);
      },
      // `Idempotency-Key` headers on any request (fetch to api.stripe.com, stripe-node's `headers` option).
      Property(node) {
        if (node.key.type !== AST_NODE_TYPES.Literal) return;
        const name = staticName(node);
        if (name !== null && isIdempotencyHeaderName(name)) check(node.value);
      },
    };
  },
});
