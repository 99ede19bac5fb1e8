import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "./analysis.js";
import { bindingOf } from "./binding.js";
import { staticName } from "./static-name.js";
import { stripeClientVerdict } from "./stripe-client.js";
import { unwrap } from "./unwrap.js";

/** Calls that move money: a repeat of one of these charges, pays out or refunds again. */
const MONEY_MOVING: Readonly<Record<string, ReadonlySet<string>>> = {
  paymentIntents: new Set(["create", "confirm", "capture", "incrementAuthorization"]),
  charges: new Set(["create", "capture"]),
  refunds: new Set(["create"]),
  invoices: new Set(["pay"]),
  payouts: new Set(["create"]),
  transfers: new Set(["create", "createReversal"]),
  subscriptions: new Set(["create"]),
  topups: new Set(["create"]),
  creditNotes: new Set(["create"]),
};

/** stripe-node resources whose names no other common SDK uses: no further evidence needed. */
const DISTINCTIVE = new Set(["paymentIntents", "setupIntents", "paymentMethods", "balanceTransactions", "creditNotes", "topups"]);

/** stripe-node resources whose requests accept an idempotency key (POSTs). */
const RESOURCES = new Set([
  ...Object.keys(MONEY_MOVING),
  "setupIntents",
  "paymentMethods",
  "customers",
  "invoiceItems",
  "subscriptionItems",
  "prices",
  "products",
  "coupons",
  "quotes",
  "disputes",
  "accounts",
  "balanceTransactions",
]);

export const MONEY_MOVING_METHODS: ReadonlySet<string> = new Set(Object.values(MONEY_MOVING).flatMap((methods) => [...methods]));

/** stripe-node methods that send a POST (and so take an idempotency key). Any other method name exits early. */
export const POST_METHODS: ReadonlySet<string> = new Set([
  ...MONEY_MOVING_METHODS,
  "update",
  "cancel",
  "del",
  "finalizeInvoice",
  "voidInvoice",
  "sendInvoice",
  "attach",
  "detach",
  "verifyMicrodeposits",
  "applyCustomerBalance",
]);

export interface StripeCall {
  resource: string;
  method: string;
  moneyMoving: boolean;
  /** The client expression (`stripe` in `stripe.paymentIntents.create`). */
  client: TSESTree.Node;
}

/** `client.<resource>.<method>(...)` on a Stripe client, or `null`. Reads are calls too (`moneyMoving: false`). */
export function stripeCall(analysis: Analysis, call: TSESTree.CallExpression): StripeCall | null {
  const callee = call.callee;
  if (callee.type !== AST_NODE_TYPES.MemberExpression) return null;
  const method = staticName(callee);
  if (method === null) return null;
  const object = unwrap(callee.object);
  // Cheap exits first: a resource name on the object, or a POST method before resolving a binding.
  if (object.type === AST_NODE_TYPES.MemberExpression) {
    const name = staticName(object);
    if (name === null || !RESOURCES.has(name)) return null;
  } else if (!POST_METHODS.has(method)) {
    return null;
  }
  const resourceAccess = resourceMember(analysis, object);
  if (!resourceAccess) return null;
  const resource = staticName(resourceAccess);
  if (resource === null || !RESOURCES.has(resource)) return null;
  const client = resourceAccess.object;
  if (!isStripeClient(analysis, client, resource)) return null;
  return { resource, method, moneyMoving: MONEY_MOVING[resource]?.has(method) ?? false, client };
}

/** A money-moving Stripe call, checked cheaply by method name first. */
export function isMoneyMovingCall(analysis: Analysis, node: TSESTree.Node): node is TSESTree.CallExpression {
  if (node.type !== AST_NODE_TYPES.CallExpression || node.callee.type !== AST_NODE_TYPES.MemberExpression) return false;
  const method = staticName(node.callee);
  if (method === null || !MONEY_MOVING_METHODS.has(method)) return false;
  return stripeCall(analysis, node)?.moneyMoving ?? false;
}

/** `stripe.paymentIntents`, directly or through `const intents = stripe.paymentIntents`. */
function resourceMember(analysis: Analysis, node: TSESTree.Node): TSESTree.MemberExpression | null {
  if (node.type === AST_NODE_TYPES.MemberExpression) return node;
  if (node.type !== AST_NODE_TYPES.Identifier) return null;
  const binding = bindingOf(analysis.sourceCode, node);
  const declarator = binding?.definition.node;
  if (declarator?.type !== AST_NODE_TYPES.VariableDeclarator || declarator.id.type !== AST_NODE_TYPES.Identifier || !declarator.init) {
    return null;
  }
  const init = unwrap(declarator.init);
  return init.type === AST_NODE_TYPES.MemberExpression ? init : null;
}

function isStripeClient(analysis: Analysis, client: TSESTree.Node, resource: string): boolean {
  const verdict = stripeClientVerdict(analysis, client);
  if (verdict !== "unknown") return verdict === "stripe";
  return DISTINCTIVE.has(resource) || namesStripe(client) || importsStripe(analysis);
}

/** `stripe`, `this.stripeClient`, `deps.stripe`: the code says what it is. */
function namesStripe(node: TSESTree.Node): boolean {
  const target = unwrap(node);
  if (target.type === AST_NODE_TYPES.Identifier) return /stripe/i.test(target.name);
  if (target.type === AST_NODE_TYPES.MemberExpression) return /stripe/i.test(staticName(target) ?? "");
  return false;
}

const importsCache = new WeakMap<object, boolean>();

/** The file imports or requires the `stripe` package (type-only imports included: the client came from it). */
function importsStripe(analysis: Analysis): boolean {
  const cached = importsCache.get(analysis.sourceCode);
  if (cached !== undefined) return cached;
  const result = /(["'])stripe\1/.test(analysis.sourceCode.text);
  importsCache.set(analysis.sourceCode, result);
  return result;
}
