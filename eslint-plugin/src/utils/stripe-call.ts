import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "./analysis.js";
import { bindingOf } from "./binding.js";
import { reachesStripeModule } from "./imported-client.js";
import { patternPath } from "./pattern-path.js";
import { calleeName, staticName } from "./static-name.js";
import { syntacticClientVerdict } from "./stripe-client.js";
import { unwrap } from "./unwrap.js";

/**
 * Calls that move money again when repeated: each repeat creates a new charge, refund, payout or transfer, bills
 * again (an invoice, an invoice item, lines added to an invoice) or counts usage again (a Billing Meter event).
 * Calls that act on one existing object that can succeed only once (`paymentIntents.confirm/capture`,
 * `charges.capture`, `invoices.finalizeInvoice/pay`) are left out: Stripe refuses the repeat, so a missing key there
 * cannot charge twice. Namespaced resources are keyed by their path below the client (`billing.meterEvents`).
 */
const MONEY_MOVING: Readonly<Record<string, ReadonlySet<string>>> = {
  paymentIntents: new Set(["create", "incrementAuthorization"]),
  charges: new Set(["create"]),
  refunds: new Set(["create"]),
  payouts: new Set(["create"]),
  transfers: new Set(["create", "createReversal"]),
  subscriptions: new Set(["create"]),
  topups: new Set(["create"]),
  creditNotes: new Set(["create"]),
  invoices: new Set(["create", "addLines"]),
  invoiceItems: new Set(["create"]),
  "billing.meterEvents": new Set(["create"]),
  "v2.billing.meterEvents": new Set(["create"]),
  "v2.billing.meterEventStream": new Set(["create"]),
};

/**
 * Billing Meter event calls: Stripe deduplicates them on the `identifier` in the params (one per event; in a
 * stream, one per element of `events`), not on a request's idempotency key.
 */
export const METER_EVENT_RESOURCES: Readonly<Record<string, "single" | "stream">> = {
  "billing.meterEvents": "single",
  "v2.billing.meterEvents": "single",
  "v2.billing.meterEventStream": "stream",
};

/** Namespaces between the client and a resource (`stripe.v2.billing.meterEvents`). */
const NAMESPACES = new Set(["billing", "v2"]);

/** Calls that act once on an existing object (see above): POSTs that take a key, not money-moving on repeat. */
const SETTLE_ONCE = ["confirm", "capture", "pay"];

/** stripe-node resources whose names no other common SDK uses: no further evidence needed. */
const DISTINCTIVE = new Set([
  "paymentIntents",
  "setupIntents",
  "paymentMethods",
  "balanceTransactions",
  "creditNotes",
  "topups",
  ...Object.keys(METER_EVENT_RESOURCES),
]);

/** stripe-node resources whose requests accept an idempotency key (POSTs). */
const RESOURCES = new Set([
  ...Object.keys(MONEY_MOVING),
  "invoices",
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
  "billing.meterEventAdjustments",
  "v2.billing.meterEventSession",
]);

/** The last segment of each resource (`meterEvents` of `billing.meterEvents`): the cheap name check. */
const RESOURCE_NAMES = new Set([...RESOURCES].map((resource) => resource.slice(resource.lastIndexOf(".") + 1)));

export const MONEY_MOVING_METHODS: ReadonlySet<string> = new Set(Object.values(MONEY_MOVING).flatMap((methods) => [...methods]));

/** stripe-node methods that send a POST (and so take an idempotency key). Any other method name exits early. */
export const POST_METHODS: ReadonlySet<string> = new Set([
  ...MONEY_MOVING_METHODS,
  ...SETTLE_ONCE,
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
  "addLines",
]);

export interface StripeCall {
  /** Its path below the client: `paymentIntents`, `billing.meterEvents`. */
  resource: string;
  method: string;
  moneyMoving: boolean;
  /** A Billing Meter event call (deduplicated on `identifier`), one event or a stream of them; else `null`. */
  meterEvent: "single" | "stream" | null;
  /** The client expression (`stripe` in `stripe.paymentIntents.create`, or in `const { refunds } = stripe`). */
  client: TSESTree.Node;
}

/** `client.<resource>.<method>(...)` on a Stripe client, or `null`. Reads are calls too (`moneyMoving: false`). */
export function stripeCall(analysis: Analysis, call: TSESTree.CallExpression): StripeCall | null {
  // Five rules ask about the same calls (keys, money moved, database writes): answered once per call.
  return analysis.memo("stripe-call", call, () => computeStripeCall(analysis, call), null);
}

function computeStripeCall(analysis: Analysis, call: TSESTree.CallExpression): StripeCall | null {
  const callee = call.callee;
  if (callee.type !== AST_NODE_TYPES.MemberExpression) return null;
  const method = staticName(callee);
  if (method === null) return null;
  const object = unwrap(callee.object);
  // Cheap exits first: a resource name on the object, or a POST method before resolving a binding.
  if (object.type === AST_NODE_TYPES.MemberExpression) {
    const name = staticName(object);
    if (name === null || !RESOURCE_NAMES.has(name)) return null;
  } else if (!POST_METHODS.has(method)) {
    return null;
  }
  const access = resourceAccess(analysis, object);
  if (!access || !RESOURCES.has(access.resource)) return null;
  if (!isStripeClient(analysis, access.client, access.resource, callee)) return null;
  const moneyMoving = MONEY_MOVING[access.resource]?.has(method) ?? false;
  const meterEvent = moneyMoving ? (METER_EVENT_RESOURCES[access.resource] ?? null) : null;
  return { resource: access.resource, method, moneyMoving, meterEvent, client: access.client };
}

/** A money-moving Stripe call, checked cheaply by method name first. */
export function isMoneyMovingCall(analysis: Analysis, node: TSESTree.Node): node is TSESTree.CallExpression {
  if (node.type !== AST_NODE_TYPES.CallExpression || node.callee.type !== AST_NODE_TYPES.MemberExpression) return false;
  const method = staticName(node.callee);
  if (method === null || !MONEY_MOVING_METHODS.has(method)) return false;
  return stripeCall(analysis, node)?.moneyMoving ?? false;
}

/**
 * The resource a method is called on and the client it belongs to: `stripe.paymentIntents`, or through
 * `const intents = stripe.paymentIntents` or `const { paymentIntents: intents } = stripe`.
 */
function resourceAccess(analysis: Analysis, node: TSESTree.Node): { resource: string; client: TSESTree.Node } | null {
  const access = directAccess(analysis, node);
  return access && withNamespaces(access);
}

/**
 * `stripe.v2.billing` + `meterEvents` -> `stripe` + `v2.billing.meterEvents`, only when that names a resource
 * (`this.billing.charges` stays `charges` on `this.billing`, an injected service named billing).
 */
function withNamespaces(access: { resource: string; client: TSESTree.Node }): { resource: string; client: TSESTree.Node } {
  let resource = access.resource;
  let best = access;
  for (let target = unwrap(access.client); target.type === AST_NODE_TYPES.MemberExpression; target = unwrap(target.object)) {
    const name = staticName(target);
    if (name === null || !NAMESPACES.has(name)) break;
    resource = `${name}.${resource}`;
    if (RESOURCES.has(resource)) best = { resource, client: target.object };
  }
  return best;
}

function directAccess(analysis: Analysis, node: TSESTree.Node): { resource: string; client: TSESTree.Node } | null {
  if (node.type === AST_NODE_TYPES.MemberExpression) {
    const resource = staticName(node);
    return resource === null ? null : { resource, client: node.object };
  }
  if (node.type !== AST_NODE_TYPES.Identifier) return null;
  const definition = bindingOf(analysis.sourceCode, node)?.definition;
  const declarator = definition?.node;
  if (declarator?.type !== AST_NODE_TYPES.VariableDeclarator || !declarator.init) return null;
  const init = unwrap(declarator.init);
  if (declarator.id.type === AST_NODE_TYPES.Identifier) {
    return init.type === AST_NODE_TYPES.MemberExpression ? resourceAccess(analysis, init) : null;
  }
  const path = patternPath(declarator.id, definition!.name as TSESTree.Identifier);
  return path?.length === 1 && typeof path[0] === "string" ? { resource: path[0], client: init } : null;
}

/**
 * Strong evidence from the syntax (constructed by the SDK, declared as Stripe) always counts; otherwise the type
 * checker, when it knows where the method is declared, decides; otherwise the resource name, the client's name,
 * the file's use of the `stripe` package or the receiver's reach back to a project module that uses it do.
 */
function isStripeClient(analysis: Analysis, client: TSESTree.Node, resource: string, callee: TSESTree.MemberExpression): boolean {
  const verdict = syntacticClientVerdict(analysis, client);
  if (verdict === "stripe") return true;
  const typed = analysis.oracle?.isStripeMethod(callee);
  if (typed !== undefined) return typed;
  if (verdict === "other") return false;
  return DISTINCTIVE.has(resource) || namesStripe(analysis, client) || importsStripe(analysis) || reachesStripeModule(analysis, client);
}

/** `stripe`, `this.stripeClient`, `deps.stripe`, `await getStripe()` (or a `const` holding it): the code says what it is. */
function namesStripe(analysis: Analysis, node: TSESTree.Node, depth = 0): boolean {
  const target = unwrap(node);
  if (target.type === AST_NODE_TYPES.Identifier) {
    if (/stripe/i.test(target.name)) return true;
    const declarator = bindingOf(analysis.sourceCode, target)?.definition.node;
    return (
      depth < 4 &&
      declarator?.type === AST_NODE_TYPES.VariableDeclarator &&
      declarator.id.type === AST_NODE_TYPES.Identifier &&
      declarator.init !== null &&
      namesStripe(analysis, declarator.init, depth + 1)
    );
  }
  if (target.type === AST_NODE_TYPES.MemberExpression) return /stripe/i.test(staticName(target) ?? "");
  if (target.type === AST_NODE_TYPES.CallExpression || target.type === AST_NODE_TYPES.NewExpression) return /stripe/i.test(calleeName(target) ?? "");
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
