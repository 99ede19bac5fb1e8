import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "./analysis.js";
import { bindingOf, variableOf } from "./binding.js";
import { fileIndex, within } from "./file-index.js";
import { coveredByBothBranches, isConditionalFor } from "./conditional-path.js";
import { importedFunction } from "./imported-function.js";
import { calledFunction, returnedExpressions } from "./local-function.js";
import { moduleOrigin } from "./module-origin.js";
import { parameterOf } from "./parameter-binding.js";
import { calleeName, staticName } from "./static-name.js";
import { spreadArgumentLists } from "./spread-arguments.js";
import { stripeCall, type StripeCall } from "./stripe-call.js";
import { unwrap } from "./unwrap.js";
import { isFunction, type FunctionNode } from "./walk.js";

/**
 * The idempotency key a Stripe call sends: `found` with the key expressions; `partial` when some paths set a key
 * and others visibly do not (`retry ? { idempotencyKey } : {}`); `missing` when every argument that can carry
 * request options is known and none sets a key; `unknown` when an argument comes from somewhere the file does not
 * show (a parameter, an import, a spread of either, `...args`): then no rule may claim the key is absent.
 */
export type KeyLookup =
  | { kind: "found"; keys: TSESTree.Node[] }
  | { kind: "partial"; keys: TSESTree.Node[] }
  | { kind: "missing" }
  | { kind: "unknown" };

/** Methods whose first argument is an object id (`confirm(id, params, options)`): it never holds options. */
const LEADING_ID = new Set(["confirm", "capture", "pay", "incrementAuthorization", "createReversal", "update", "cancel", "finalizeInvoice", "addLines"]);

const IDEMPOTENCY_HEADER = /^idempotency-key$/i;

/** A wrapper named for what it does (`withIdempotency(key, (options) => ...)`): its other arguments are the key. */
const KEY_WRAPPER = /idempot/i;

/** The request options argument a call writes, after its params (and its leading id), or `null`. */
export function optionsArgument(call: TSESTree.CallExpression, info: StripeCall): TSESTree.CallExpressionArgument | null {
  return call.arguments[(LEADING_ID.has(info.method) ? 1 : 0) + 1] ?? null;
}

const MISSING: KeyLookup = { kind: "missing" };
const UNKNOWN: KeyLookup = { kind: "unknown" };

/**
 * The property that carries the dedupe value: `idempotencyKey` in request options (or an `Idempotency-Key`
 * header), or a Billing Meter event's `identifier` in its params.
 */
type KeyField = "idempotencyKey" | "identifier";

export function idempotencyKeyOf(analysis: Analysis, call: TSESTree.CallExpression, info: StripeCall): KeyLookup {
  // Asked by two rules of every money-moving call (whether a key is sent, whether it is stable): answered once.
  return analysis.memo(
    "idempotency-key",
    call,
    () => {
      const skip = LEADING_ID.has(info.method) ? 1 : 0;
      const lists = spreadArgumentLists(analysis, call) ?? [call.arguments];
      return branches(lists.map((list) => keyFromArguments(analysis, list.slice(skip))));
    },
    UNKNOWN,
  );
}

/**
 * The key one argument list sends. A lone argument where the params come first is the params, whatever it holds
 * (`create({ ...payload })`, `create(params)`): stripe-node takes request options only from an argument of their
 * own, and a lone object that did hold an option would be taken as the options, leaving a charge with no params
 * that Stripe refuses. So a call that can move money with one argument sends no key, unless the file shows one in it,
 * or the argument is request options by its type (`Stripe.RequestOptions`) or, without types, by its name (`options`).
 */
function keyFromArguments(analysis: Analysis, list: readonly TSESTree.CallExpressionArgument[]): KeyLookup {
  const [only] = list;
  if (list.length === 1 && only && only.type !== AST_NODE_TYPES.SpreadElement) {
    const params = lookup(analysis, only, 0, "idempotencyKey");
    if (params.kind !== "unknown") return params;
    return isRequestOptions(analysis, only) ? UNKNOWN : MISSING;
  }
  return merge(list.map((argument) => lookup(analysis, argument, 0, "idempotencyKey")));
}

/**
 * The `identifier` a Billing Meter event call sends: in its params (`billing.meterEvents.create({ identifier })`),
 * or, for a v2 stream, on every element of `events` (an array the file shows, or a `.map` whose callback returns the
 * event). `null` when the call is no meter event.
 */
export function meterIdentifierOf(analysis: Analysis, call: TSESTree.CallExpression, info: StripeCall): KeyLookup | null {
  if (info.meterEvent === null) return null;
  const params = call.arguments[0];
  if (!params) return MISSING;
  if (params.type === AST_NODE_TYPES.SpreadElement) return UNKNOWN;
  if (info.meterEvent === "single") return lookup(analysis, params, 0, "identifier");
  const events = propertyValue(analysis, params, "events");
  return events ? eventsLookup(analysis, events) : UNKNOWN;
}

function eventsLookup(analysis: Analysis, events: TSESTree.Node): KeyLookup {
  const target = unwrap(events);
  if (target.type === AST_NODE_TYPES.ArrayExpression) {
    const elements = target.elements.map((element) =>
      !element || element.type === AST_NODE_TYPES.SpreadElement ? UNKNOWN : lookup(analysis, element, 0, "identifier"),
    );
    return elements.length > 0 ? branches(elements) : UNKNOWN;
  }
  if (target.type === AST_NODE_TYPES.CallExpression && target.callee.type === AST_NODE_TYPES.MemberExpression && staticName(target.callee) === "map") {
    const callback = target.arguments[0];
    if (!callback || !isFunction(callback)) return UNKNOWN;
    const returned = returnedExpressions(analysis.sourceCode, callback).map((value) => lookup(analysis, value, 0, "identifier"));
    return returned.length > 0 ? branches(returned) : UNKNOWN;
  }
  if (target.type === AST_NODE_TYPES.Identifier) {
    const declarator = bindingOf(analysis.sourceCode, target)?.definition.node;
    if (declarator?.type === AST_NODE_TYPES.VariableDeclarator && declarator.id.type === AST_NODE_TYPES.Identifier && declarator.init) {
      return eventsLookup(analysis, declarator.init);
    }
  }
  return UNKNOWN;
}

/** `params.events` of an object literal the file shows (directly or through a `const`), or `null`. */
function propertyValue(analysis: Analysis, node: TSESTree.Node, name: string, depth = 0): TSESTree.Node | null {
  const target = unwrap(node);
  if (target.type === AST_NODE_TYPES.Identifier && depth < 8) {
    const declarator = bindingOf(analysis.sourceCode, target)?.definition.node;
    if (declarator?.type === AST_NODE_TYPES.VariableDeclarator && declarator.id.type === AST_NODE_TYPES.Identifier && declarator.init) {
      return propertyValue(analysis, declarator.init, name, depth + 1);
    }
    return null;
  }
  if (target.type !== AST_NODE_TYPES.ObjectExpression) return null;
  const property = target.properties.find(
    (candidate): candidate is TSESTree.Property => candidate.type === AST_NODE_TYPES.Property && staticName(candidate) === name,
  );
  return property?.value ?? null;
}

function lookup(analysis: Analysis, node: TSESTree.Node, depth: number, field: KeyField): KeyLookup {
  if (depth > 8) return UNKNOWN;
  const target = unwrap(node);
  switch (target.type) {
    case AST_NODE_TYPES.ObjectExpression:
      return objectLookup(analysis, target, depth, field);
    case AST_NODE_TYPES.Identifier: {
      if (target.name === "undefined") return MISSING;
      const definition = bindingOf(analysis.sourceCode, target)?.definition;
      const declarator = definition?.node;
      if (declarator?.type === AST_NODE_TYPES.VariableDeclarator && declarator.id.type === AST_NODE_TYPES.Identifier && declarator.init) {
        const assigned = memberAssignments(analysis, target, field);
        const initial = () => lookup(analysis, declarator.init!, depth + 1, field);
        if (!assigned) return initial();
        return assigned.kind === "partial" ? branches([initial(), { kind: "found", keys: assigned.keys }]) : assigned;
      }
      if (definition?.type === "Parameter" && isFunction(definition.node)) {
        return field === "idempotencyKey" ? callbackParameterLookup(analysis, definition.node, definition.name as TSESTree.Identifier, depth) : UNKNOWN;
      }
      return reassignedLookup(analysis, target, depth, field);
    }
    case AST_NODE_TYPES.ConditionalExpression:
      return branches([lookup(analysis, target.consequent, depth + 1, field), lookup(analysis, target.alternate, depth + 1, field)]);
    case AST_NODE_TYPES.LogicalExpression:
      // `retry && { idempotencyKey }` sends no options when `retry` is false; `a ?? b`, `a || b` may send either.
      return branches([
        target.operator === "&&" ? MISSING : lookup(analysis, target.left, depth + 1, field),
        lookup(analysis, target.right, depth + 1, field),
      ]);
    case AST_NODE_TYPES.CallExpression:
      return helperLookup(analysis, target, depth, field);
    case AST_NODE_TYPES.Literal:
    case AST_NODE_TYPES.TemplateLiteral:
    case AST_NODE_TYPES.ArrayExpression:
    case AST_NODE_TYPES.ArrowFunctionExpression:
    case AST_NODE_TYPES.FunctionExpression:
      return MISSING;
    default:
      return UNKNOWN;
  }
}

/**
 * Options (or meter event params) returned by a function of another module of the project
 * (`create(params, requestOptions())`): looked up in that module. A key found there is reported on this call, the
 * place a reviewer of this file sees; the stable rule then follows the call into the module.
 */
function helperLookup(analysis: Analysis, call: TSESTree.CallExpression, depth: number, field: KeyField): KeyLookup {
  const imported = importedFunction(analysis, call.callee);
  if (!imported) return UNKNOWN;
  const returned = returnedExpressions(imported.module.analysis.sourceCode, imported.fn).map((value) => lookup(imported.module.analysis, value, depth + 1, field));
  if (returned.length === 0) return UNKNOWN;
  const found = branches(returned);
  return found.kind === "found" || found.kind === "partial" ? { kind: found.kind, keys: [call] } : found;
}

function objectLookup(analysis: Analysis, object: TSESTree.ObjectExpression, depth: number, field: KeyField): KeyLookup {
  const parts: KeyLookup[] = [];
  for (const property of object.properties) {
    if (property.type === AST_NODE_TYPES.SpreadElement) {
      parts.push(lookup(analysis, property.argument, depth + 1, field));
      continue;
    }
    const name = staticName(property);
    if (name === null) {
      parts.push(UNKNOWN);
    } else if (name === field) {
      parts.push({ kind: "found", keys: [property.value] });
    } else if (name === "headers" && field === "idempotencyKey") {
      parts.push(headerLookup(unwrap(property.value)));
    }
  }
  return merge(parts);
}

function headerLookup(headers: TSESTree.Node): KeyLookup {
  if (headers.type !== AST_NODE_TYPES.ObjectExpression) return UNKNOWN;
  for (const property of headers.properties) {
    if (property.type === AST_NODE_TYPES.SpreadElement) return UNKNOWN;
    const name = staticName(property);
    if (name !== null && IDEMPOTENCY_HEADER.test(name)) return { kind: "found", keys: [property.value] };
  }
  return MISSING;
}

/**
 * Options that are a parameter of a callback: `wrapper(key, (options) => stripe.x.create(params, options))`. A
 * same-file wrapper is followed to the calls it makes of the callback; a wrapper named for idempotency passes its
 * other arguments as the key; anything else is unknown.
 */
function callbackParameterLookup(analysis: Analysis, callback: FunctionNode, name: TSESTree.Identifier, depth: number): KeyLookup {
  const parameter = parameterOf(callback, name);
  const call = callback.parent;
  if (!parameter || parameter.pattern !== name || call?.type !== AST_NODE_TYPES.CallExpression) return UNKNOWN;
  const position = call.arguments.indexOf(callback as TSESTree.CallExpressionArgument);
  if (position < 0) return UNKNOWN;
  const wrapper = calledFunction(analysis, call.callee);
  const invoker = wrapper?.params[position];
  if (wrapper && invoker?.type === AST_NODE_TYPES.Identifier) {
    const lookups = invocationsOf(analysis, wrapper, invoker).map((invocation) => {
      const argument = invocation.arguments[parameter.index];
      return argument ? lookup(analysis, argument, depth + 1, "idempotencyKey") : MISSING;
    });
    return lookups.length > 0 ? branches(lookups) : UNKNOWN;
  }
  if (KEY_WRAPPER.test(calleeName(call) ?? "")) {
    const keys = call.arguments.filter((argument) => argument !== callback && !isFunction(argument) && argument.type !== AST_NODE_TYPES.SpreadElement);
    return keys.length > 0 ? { kind: "found", keys } : UNKNOWN;
  }
  return UNKNOWN;
}

/**
 * `let params = {}; if (...) params = { ... }; params.x = ...`: every value the variable is given is an object the
 * file shows, and no `params.idempotencyKey = ...`: the alternatives decide. Anything else is unknown.
 */
function reassignedLookup(analysis: Analysis, identifier: TSESTree.Identifier, depth: number, field: KeyField): KeyLookup {
  const variable = variableOf(analysis.sourceCode, identifier);
  const declarator = variable?.defs.length === 1 ? variable.defs[0]?.node : undefined;
  if (!variable || declarator?.type !== AST_NODE_TYPES.VariableDeclarator || declarator.id.type !== AST_NODE_TYPES.Identifier) return UNKNOWN;
  const assigned = memberAssignments(analysis, identifier, field);
  if (assigned && assigned.kind !== "partial") return assigned;
  const values: TSESTree.Node[] = [];
  for (const reference of variable.references) {
    if (!reference.isWrite()) continue;
    const parent = reference.identifier.parent;
    if (!reference.writeExpr || (parent?.type === AST_NODE_TYPES.AssignmentExpression && parent.operator !== "=")) return UNKNOWN;
    values.push(reference.writeExpr);
  }
  if (values.length === 0) return UNKNOWN;
  const written = branches(values.map((value) => lookup(analysis, value, depth + 1, field)));
  return assigned?.kind === "partial" ? branches([written, { kind: "found", keys: assigned.keys }]) : written;
}

/**
 * `options.idempotencyKey = key` on the variable: the key found, or `partial` when every such assignment may be
 * skipped before `identifier` is used (under an `if`, in a callback: see conditional-path); an assignment to a
 * computed key or `headers`: unknown.
 */
function memberAssignments(analysis: Analysis, identifier: TSESTree.Identifier, field: KeyField): KeyLookup | null {
  const variable = variableOf(analysis.sourceCode, identifier);
  const keys: TSESTree.Node[] = [];
  const writes: TSESTree.Node[] = [];
  for (const reference of variable?.references ?? []) {
    const member = reference.identifier.parent;
    const assignment = member?.parent;
    const used = reference.identifier as TSESTree.Identifier;
    if (used !== identifier && isHandedTo(analysis, member, used)) {
      // `Object.assign(options, { idempotencyKey })` writes what its other arguments show; any other call that is
      // handed the object (`addKey(options)`) may set the key: unknown.
      const assigned = objectAssignKeys(analysis, member as TSESTree.CallExpression, used, field);
      if (!assigned) return UNKNOWN;
      keys.push(...assigned);
      if (assigned.length > 0) writes.push(member as TSESTree.CallExpression);
      continue;
    }
    if (member?.type !== AST_NODE_TYPES.MemberExpression || member.object !== reference.identifier) continue;
    if (assignment?.type !== AST_NODE_TYPES.AssignmentExpression || assignment.left !== member) continue;
    const name = staticName(member);
    if (name === null || name === "headers") return UNKNOWN;
    if (name === field) {
      keys.push(assignment.right);
      writes.push(assignment);
    }
  }
  if (keys.length === 0) return null;
  const covered = coveredByBothBranches(writes, identifier);
  const always = writes.some((write) => covered.has(write) || !isConditionalFor(write, identifier));
  return { kind: always ? "found" : "partial", keys };
}

/** Loggers read what they are handed; they do not add a key. */
const READ_ONLY_RECEIVERS = /^(console|logger|log)$/i;

/**
 * The object is handed to a call that may change it: not a Stripe call (another request with the same options) and
 * not a logger (`console.log(options)`).
 */
function isHandedTo(analysis: Analysis, parent: TSESTree.Node | undefined, identifier: TSESTree.Identifier): boolean {
  if (parent?.type !== AST_NODE_TYPES.CallExpression && parent?.type !== AST_NODE_TYPES.NewExpression) return false;
  if (!parent.arguments.includes(identifier)) return false;
  let root: TSESTree.Node = parent.callee;
  while (root.type === AST_NODE_TYPES.MemberExpression) root = root.object;
  if (root.type === AST_NODE_TYPES.Identifier && READ_ONLY_RECEIVERS.test(root.name)) return false;
  return parent.type === AST_NODE_TYPES.NewExpression || stripeCall(analysis, parent) === null;
}

/** The keys `Object.assign(target, ...sources)` writes into `target`, or `null` when the call is anything else. */
function objectAssignKeys(analysis: Analysis, call: TSESTree.CallExpression, target: TSESTree.Identifier, field: KeyField): TSESTree.Node[] | null {
  const origin = moduleOrigin(analysis.sourceCode, call.callee);
  if (origin?.module !== "<global>" || origin.path.join(".") !== "Object.assign" || call.arguments[0] !== target) return null;
  const keys: TSESTree.Node[] = [];
  for (const source of call.arguments.slice(1)) {
    const found = lookup(analysis, source, 1, field);
    if (found.kind === "unknown") return null;
    if (found.kind === "found" || found.kind === "partial") keys.push(...found.keys);
  }
  return keys;
}

/** The calls a function makes of one of its parameters (`fn(options)` inside `function wrap(key, fn)`). */
function invocationsOf(analysis: Analysis, fn: FunctionNode, parameter: TSESTree.Identifier): TSESTree.CallExpression[] {
  return within(fileIndex(analysis.sourceCode).calls, fn.body).filter(
    (node): node is TSESTree.CallExpression =>
      node.type === AST_NODE_TYPES.CallExpression &&
      node.callee.type === AST_NODE_TYPES.Identifier &&
      node.callee.name === parameter.name &&
      bindingOf(analysis.sourceCode, node.callee)?.definition.name === parameter,
  );
}

/** Request options named or typed as such (`create(options)` where params are optional): what they hold is unknown. */
const OPTIONS_NAME = /^(request)?(opts|options)$/i;

function isRequestOptions(analysis: Analysis, node: TSESTree.Node): boolean {
  const target = unwrap(node);
  const typed = analysis.oracle?.hasStripeProperty(target, "idempotencyKey");
  if (typed !== undefined) return typed;
  return target.type === AST_NODE_TYPES.Identifier && OPTIONS_NAME.test(target.name);
}

/** Parts of one request (properties, spreads, arguments): any key found wins; one unknown part makes it unknown. */
function merge(parts: readonly KeyLookup[]): KeyLookup {
  // Loops, not flatMap: this runs on every object literal handed to a Stripe call.
  const keys: TSESTree.Node[] = [];
  const partial: TSESTree.Node[] = [];
  let unknown = false;
  for (const part of parts) {
    if (part.kind === "found") keys.push(...part.keys);
    else if (part.kind === "partial") partial.push(...part.keys);
    else if (part.kind === "unknown") unknown = true;
  }
  if (keys.length > 0) return { kind: "found", keys };
  if (partial.length > 0) return { kind: "partial", keys: partial };
  return unknown ? UNKNOWN : MISSING;
}

/** Alternatives (`?:`, `&&`, `??`): a key on every path is found; on some paths only, partial. */
function branches(parts: readonly KeyLookup[]): KeyLookup {
  const keys: TSESTree.Node[] = [];
  let lacking = false;
  let unknown = false;
  for (const part of parts) {
    if (part.kind === "found" || part.kind === "partial") keys.push(...part.keys);
    if (part.kind === "missing" || part.kind === "partial") lacking = true;
    if (part.kind === "unknown") unknown = true;
  }
  if (keys.length > 0) return { kind: lacking ? "partial" : "found", keys };
  return unknown ? UNKNOWN : MISSING;
}

export function isIdempotencyHeaderName(name: string): boolean {
  return IDEMPOTENCY_HEADER.test(name);
}
