import { AST_NODE_TYPES } from "@typescript-eslint/utils";
import { createRule } from "../create-rule.js";
import { analysisFor } from "../utils/analysis.js";
import { idempotencyKeyOf } from "../utils/idempotency-key.js";
import { repeatWording } from "../utils/message-context.js";
import { staticName } from "../utils/static-name.js";
import { MONEY_MOVING_METHODS, stripeCall } from "../utils/stripe-call.js";
import { typeCheckedSchema, type TypeCheckedOption } from "../utils/type-checked-option.js";

export default createRule<[TypeCheckedOption], "missingKey" | "keyOnSomePaths">({
  name: "require-idempotency-key",
  meta: {
    type: "problem",
    docs: {
      description: "Require an idempotency key on every Stripe call that moves money",
      recommended: true,
    },
    messages: {
      missingKey:
        "{{resource}}.{{method}}() moves money without an idempotency key: stripe-node then sends a random stripe-node-retry-<uuid> key per call, so {{repeat}} charges again. Pass { idempotencyKey } derived from the event's business fields.",
      keyOnSomePaths:
        "{{resource}}.{{method}}() moves money with an idempotency key on some paths only: where the options carry none, stripe-node sends a random key per call, so {{repeat}} charges again. Pass the same stable key on every path.",
    },
    schema: [typeCheckedSchema],
    defaultOptions: [{ typeChecked: false }],
  },
  create(context, [options]) {
    const analysis = analysisFor(context, options.typeChecked === true);
    return {
      CallExpression(node) {
        if (node.callee.type !== AST_NODE_TYPES.MemberExpression) return;
        const method = staticName(node.callee);
        if (method === null || !MONEY_MOVING_METHODS.has(method)) return;
        const info = stripeCall(analysis, node);
        if (!info?.moneyMoving) return;
        const lookup = idempotencyKeyOf(analysis, node, info);
        if (lookup.kind !== "missing" && lookup.kind !== "partial") return;
        context.report({
          node: node.callee.property,
          messageId: lookup.kind === "missing" ? "missingKey" : "keyOnSomePaths",
          data: { resource: info.resource, method: info.method, repeat: repeatWording(analysis) },
        });
      },
    };
  },
});
