import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "./analysis.js";
import { canImport, withImport } from "./import-fix.js";
import { annotatedTypeName } from "./type-annotation.js";
import type { StripeCall } from "./stripe-call.js";
import { staticName } from "./static-name.js";
import { unwrap } from "./unwrap.js";
import { isFunction, walk } from "./walk.js";

/** Where the runtime's key helper is imported from (`stableKey(fields, { scope })`, runtime/core/stable-key.ts). */
export const STABLE_KEY_MODULE = "chargeguard/runtime";

/**
 * The business payload of a delivery, by the metadata read off it: what the producer wrote, which survives a
 * redelivery, a resubmission and a re-added job (Service Bus and an SQS Lambda record: `body`; the AWS SDK's SQS
 * message: `Body`; a BullMQ/Bull/Bee job: `data`).
 */
const PAYLOAD: Readonly<Record<string, string>> = {
  lockToken: "body",
  deliveryCount: "body",
  lockedUntilUtc: "body",
  messageId: "body",
  sequenceNumber: "body",
  enqueuedTimeUtc: "body",
  receiptHandle: "body",
  ReceiptHandle: "Body",
  MessageId: "Body",
};

/**
 * `stableKey({ body: message.body }, { scope: "<resource>.<method>" })`: the key a suggestion writes in place of a
 * per-delivery one, from the business fields of the same delivery. Only where that is mechanical and keeps what the
 * handler charges: the unstable source is metadata read off a named delivery (`message.messageId`, `job.id`), the key
 * is written in the call's own arguments, the file is an ES module (the import is added), and the handler makes no
 * other call of the same resource and method (both would then share one key, and Stripe would answer the second
 * with the first). `null` otherwise.
 */
export function deliveryKeyExpression(analysis: Analysis, call: TSESTree.CallExpression, info: StripeCall, delivery: TSESTree.Node, property: string): string | null {
  const payload = property === "id" ? "data" : PAYLOAD[property];
  if (payload === undefined || delivery.type !== AST_NODE_TYPES.Identifier) return null;
  return keyFor(analysis, call, info, `${delivery.name}.${payload}`);
}

/**
 * The same for a call with no key at all, inside a Service Bus message handler: the message is the parameter annotated
 * `ServiceBusReceivedMessage` (or the one `processMessage` receives) of an enclosing function.
 */
export function handlerKeyExpression(analysis: Analysis, call: TSESTree.CallExpression, info: StripeCall): string | null {
  for (let current: TSESTree.Node | undefined = call.parent; current; current = current.parent) {
    if (!isFunction(current)) continue;
    const [first] = current.params;
    if (first?.type !== AST_NODE_TYPES.Identifier) continue;
    const property = current.parent?.type === AST_NODE_TYPES.Property ? staticName(current.parent) : null;
    const typeName = annotatedTypeName(first);
    if ((typeName !== null && /^ServiceBus\w*Message$/.test(typeName)) || property === "processMessage") return keyFor(analysis, call, info, `${first.name}.body`);
  }
  return null;
}

/**
 * The idempotency key the guard hands its work callback, where the call runs inside `guard.run({ scope, key, ... },
 * async ({ idempotencyKey }) => ...)`: the record and Stripe then share one key, derived from the identity the guard
 * was given. `idempotencyKey` (or the name it was destructured to), or `ctx.idempotencyKey` for a plain parameter; a
 * callback with no parameter gets none (adding one is not mechanical in every callback form). `null` elsewhere.
 */
export function guardKeyExpression(call: TSESTree.Node): string | null {
  for (let current: TSESTree.Node | undefined = call.parent; current; current = current.parent) {
    if (!isFunction(current)) continue;
    const run = current.parent;
    if (run?.type !== AST_NODE_TYPES.CallExpression || run.arguments[1] !== current || !isGuardRun(run)) continue;
    const [context] = current.params;
    if (context?.type === AST_NODE_TYPES.Identifier) return `${context.name}.idempotencyKey`;
    if (context?.type !== AST_NODE_TYPES.ObjectPattern) return null;
    for (const property of context.properties) {
      if (property.type === AST_NODE_TYPES.Property && staticName(property) === "idempotencyKey" && property.value.type === AST_NODE_TYPES.Identifier) return property.value.name;
    }
    return null;
  }
  return null;
}

/**
 * In a Stripe webhook handler, the verified event's id, which Stripe keeps when it sends the event again:
 * `` `${event.id}:refunds.create` `` where `const event = stripe.webhooks.constructEvent(...)` in an enclosing
 * function. The call's name keeps two calls of the handler apart; a second call of the same method gets none.
 */
export function webhookKeyExpression(analysis: Analysis, call: TSESTree.CallExpression, info: StripeCall): string | null {
  if (info.meterEvent !== null || !alone(analysis, call, info)) return null;
  for (let current: TSESTree.Node | undefined = call.parent; current; current = current.parent) {
    if (!isFunction(current)) continue;
    let event: string | null = null;
    walk(analysis.sourceCode, current, (node) => {
      if (event !== null || node.type !== AST_NODE_TYPES.VariableDeclarator || node.id.type !== AST_NODE_TYPES.Identifier || !node.init) return;
      const init = unwrap(node.init);
      const verified = init.type === AST_NODE_TYPES.CallExpression && init.callee.type === AST_NODE_TYPES.MemberExpression && /^constructEvent(Async)?$/.test(staticName(init.callee) ?? "");
      if (verified && node.range[1] <= call.range[0]) event = node.id.name;
    });
    if (event !== null) return `\`\${${event}.id}:${info.resource}.${info.method}\``;
  }
  return null;
}

/** `<guard>.run({ scope, key, ... }, work)`: chargeguard's guard, known by its input's shape. */
function isGuardRun(call: TSESTree.CallExpression): boolean {
  const [input] = call.arguments;
  if (call.callee.type !== AST_NODE_TYPES.MemberExpression || staticName(call.callee) !== "run" || input?.type !== AST_NODE_TYPES.ObjectExpression) return false;
  const names = new Set(input.properties.map((property) => (property.type === AST_NODE_TYPES.Property ? staticName(property) : null)));
  return names.has("scope") && names.has("key");
}

function keyFor(analysis: Analysis, call: TSESTree.CallExpression, info: StripeCall, payload: string): string | null {
  if (info.meterEvent !== null || !canImport(analysis, "stableKey", STABLE_KEY_MODULE) || !alone(analysis, call, info)) return null;
  const scope = `${info.resource}.${info.method}`;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(scope)) return null;
  return `stableKey({ body: ${payload} }, { scope: "${scope}" })`;
}

/** No other `<resource>.<method>(...)` in the outermost function around the call. */
function alone(analysis: Analysis, call: TSESTree.CallExpression, info: StripeCall): boolean {
  let outer: TSESTree.Node = analysis.sourceCode.ast;
  for (let current: TSESTree.Node | undefined = call.parent; current; current = current.parent) if (isFunction(current)) outer = current;
  let others = 0;
  walk(analysis.sourceCode, outer, (node) => {
    if (node === call || node.type !== AST_NODE_TYPES.CallExpression || node.callee.type !== AST_NODE_TYPES.MemberExpression) return;
    const object = node.callee.object;
    if (staticName(node.callee) === info.method && object.type === AST_NODE_TYPES.MemberExpression && staticName(object) === info.resource.split(".").pop()) others += 1;
  });
  return others === 0;
}

/** `fix`, plus the import of `stableKey` when the file does not have it. */
export function withStableKeyImport(analysis: Analysis, fixer: TSESLint.RuleFixer, fix: TSESLint.RuleFix): TSESLint.RuleFix[] {
  return withImport(analysis, fixer, fix, "stableKey", STABLE_KEY_MODULE);
}
