import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "../../utils/analysis.js";
import { returnedExpressions } from "../../utils/local-function.js";
import { moduleOrigin } from "../../utils/module-origin.js";
import { staticName } from "../../utils/static-name.js";
import { unwrap } from "../../utils/unwrap.js";
import { isFunction } from "../../utils/walk.js";

/** A value chargeguard's own API derives a billing record's identity or a Stripe key from. */
export interface KitIdentity {
  node: TSESTree.Node;
  /** What it is, as the message names it. */
  what: string;
}

/**
 * The identity inputs of chargeguard's runtime, checked like Stripe keys: the guard keys its record and its Stripe
 * key on them, so a per-delivery or random value there opens a second record for the same event and charges again.
 * `guard.run({ scope, key: { ... }, idempotencyKey }, work)`: each field of `key` and the `idempotencyKey`;
 * `toBilling(event)`'s returned `key` and `keyFields`; `stableKey(fields, { scope })` imported from chargeguard's
 * runtime: its fields. Recognised by the input's shape (`scope` and `key` together) or the import, not by a name.
 */
export function kitIdentitiesOf(analysis: Analysis, call: TSESTree.CallExpression): KitIdentity[] {
  const callee = unwrap(call.callee);
  const [first] = call.arguments;
  if (!first) return [];
  if (callee.type === AST_NODE_TYPES.MemberExpression && staticName(callee) === "run" && call.arguments.length >= 2) {
    const input = unwrap(first);
    if (input.type !== AST_NODE_TYPES.ObjectExpression || !property(input, "scope") || !property(input, "key")) return [];
    return [...fieldsOf(property(input, "key")!, "guard record key"), ...fieldsOf(property(input, "idempotencyKey"), "guard's idempotency key")];
  }
  const origin = moduleOrigin(analysis.sourceCode, call.callee);
  if (origin?.path.join(".") === "stableKey" && /^chargeguard(\/|$)|stable-key(\.js)?$/.test(origin.module)) return fieldsOf(first, "stableKey() field");
  return [];
}

/** `toBilling: (event) => ({ key, keyFields, ... })` (a property or a method of a billing event definition). */
export function billingIdentitiesOf(analysis: Analysis, node: TSESTree.Property | TSESTree.MethodDefinition): KitIdentity[] {
  if (staticName(node) !== "toBilling") return [];
  const fn = unwrap(node.value);
  if (!isFunction(fn)) return [];
  return returnedExpressions(analysis.sourceCode, fn).flatMap((value) => {
    const billable = unwrap(value);
    if (billable.type !== AST_NODE_TYPES.ObjectExpression) return [];
    return [...fieldsOf(property(billable, "key"), "toBilling() key"), ...fieldsOf(property(billable, "keyFields"), "toBilling() keyFields")];
  });
}

function property(object: TSESTree.ObjectExpression, name: string): TSESTree.Node | undefined {
  const found = object.properties.find((candidate): candidate is TSESTree.Property => candidate.type === AST_NODE_TYPES.Property && staticName(candidate) === name);
  return found?.value;
}

/** Each field of an identity object literal (reported on the field), or the whole value when it is not a literal. */
function fieldsOf(value: TSESTree.Node | undefined, what: string): KitIdentity[] {
  if (!value) return [];
  const target = unwrap(value);
  if (target.type !== AST_NODE_TYPES.ObjectExpression) return [{ node: value, what }];
  return target.properties.map((field) => ({ node: field.type === AST_NODE_TYPES.Property ? field.value : field.argument, what }));
}
