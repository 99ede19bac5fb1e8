import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { createRule } from "../create-rule.js";
import { analysisFor } from "../utils/analysis.js";
import { withFileIndex } from "../utils/file-index.js";
import { idempotencyKeyOf, isIdempotencyHeaderName, meterIdentifierOf } from "../utils/idempotency-key.js";
import { repeatWording } from "../utils/message-context.js";
import { staticName } from "../utils/static-name.js";
import { stripeCall } from "../utils/stripe-call.js";
import { typeCheckedSchema, type TypeCheckedOption } from "../utils/type-checked-option.js";
import { unstableSourceOf } from "../utils/unstable-source.js";

export default createRule<[TypeCheckedOption], "unstableKey" | "unstableIdentifier">({
  name: "stable-idempotency-key",
  meta: {
    type: "problem",
    docs: {
      description:
        "Require Stripe idempotency keys and meter event identifiers that stay the same when Service Bus redelivers or a message is resubmitted",
      recommended: true,
    },
    messages: {
      unstableKey:
        "This Stripe idempotency key derives from {{source}}: {{why}}, and Stripe then charges again. Derive the key from the event's business fields (customer, billing period, amount) only.",
      unstableIdentifier:
        "This Billing Meter event identifier derives from {{source}}: {{why}}, and Stripe then counts the usage again. Derive the identifier from the event's business fields (customer, meter, usage period) only.",
    },
    schema: [typeCheckedSchema],
    defaultOptions: [{ typeChecked: false }],
  },
  create(context, [options]) {
    const analysis = analysisFor(context, options.typeChecked === true);
    const reported = new Set<TSESTree.Node>();

    function check(key: TSESTree.Node, kind: "key" | "identifier" = "key"): void {
      if (reported.has(key)) return;
      reported.add(key);
      const source = unstableSourceOf(analysis, key);
      if (!source) return;
      const why = source.why.replace("{repeat}", repeatWording(analysis));
      if (kind === "key") {
        context.report({ node: key, messageId: "unstableKey", data: { source: source.source, why } });
      } else {
        context.report({ node: key, messageId: "unstableIdentifier", data: { source: source.source, why: why.replace(/\bkey\b/, "identifier") } });
      }
    }

    // Looked at when the file has been traversed: the analyses read the file's index, complete by then.
    const calls: TSESTree.CallExpression[] = [];
    const headers: TSESTree.Property[] = [];
    return withFileIndex(context.sourceCode, {
      CallExpression(node) {
        if (node.callee.type === AST_NODE_TYPES.MemberExpression && node.arguments.length > 0) calls.push(node);
      },
      // `Idempotency-Key` headers on any request (fetch to api.stripe.com, stripe-node's `headers` option).
      Property(node) {
        if (node.key.type !== AST_NODE_TYPES.Literal) return;
        const name = staticName(node);
        if (name !== null && isIdempotencyHeaderName(name)) headers.push(node);
      },
      "Program:exit"() {
        for (const node of calls) {
          // Any request on a Stripe resource that carries a key (`subscriptionItems.createUsageRecord` too);
          // stripeCall exits early on names.
          const info = stripeCall(analysis, node);
          if (!info) continue;
          const lookup = idempotencyKeyOf(analysis, node, info);
          if (lookup.kind === "found" || lookup.kind === "partial") lookup.keys.forEach((key) => check(key));
          const identifier = meterIdentifierOf(analysis, node, info);
          if (identifier?.kind === "found" || identifier?.kind === "partial") identifier.keys.forEach((key) => check(key, "identifier"));
        }
        for (const header of headers) check(header.value);
      },
    });
  },
});
