import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "../../utils/analysis.js";
import { bindingOf, isGlobalReference } from "../../utils/binding.js";
import { importedFunction, type ImportedFunction } from "../../utils/imported-function.js";
import { calledFunction, returnedExpressions } from "../../utils/local-function.js";
import { isFromMessageBody } from "./message-body.js";
import { moduleOrigin } from "../../utils/module-origin.js";
import { bindArguments, EMPTY_ENV, parameterOf, type Env } from "../../utils/parameter-binding.js";
import { patternPath, type PathStep } from "../../utils/pattern-path.js";
import { deliveryIdentity } from "./queue-delivery.js";
import { staticName } from "../../utils/static-name.js";
import { annotatedTypeName } from "../../utils/type-annotation.js";
import { generatorFactory, NEW_DATE, UNSTABLE_MESSAGE_PROPERTIES, unstableCall, type Instability } from "./unstable-catalog.js";
import { unwrap } from "../../utils/unwrap.js";
import { isFunction, type FunctionNode } from "../../utils/walk.js";

/** Where an unstable value enters an expression. */
export interface UnstableSource extends Instability {
  node: TSESTree.Node;
}

/**
 * Methods that look a value up by the argument (a cache, a table, a map): the result is what was stored, not a
 * transformation of the argument, so an unstable argument does not make the result unstable.
 */
const LOOKUPS = /^(get|has|query|execute|find\w*|select\w*|fetch\w*|retrieve|load\w*|read\w*|lookup\w*)$/;

const MAX_DEPTH = 40;

/**
 * Follows a value back to per-delivery or per-message Service Bus metadata, randomness or a clock through
 * never-reassigned bindings, destructuring, templates, concatenation, `join`, `??`/`||`/`?:`, TS wrappers,
 * `await`, hashing chains (`createHash().update(x).digest()`: a hash of a random value is random) and same-file
 * functions and methods (their returns, with arguments bound to parameters). A parameter whose argument the file
 * does not show is of unknown origin: not reported.
 */
export function unstableSourceOf(analysis: Analysis, node: TSESTree.Node): UnstableSource | null {
  return trace(analysis, node, EMPTY_ENV, 0);
}

function trace(analysis: Analysis, node: TSESTree.Node, env: Env, depth: number): UnstableSource | null {
  if (depth > MAX_DEPTH) return null;
  const target = unwrap(node);
  if (env.size === 0) return analysis.memo("unstable", target, () => compute(analysis, target, env, depth), null);
  return compute(analysis, target, env, depth);
}

function first(analysis: Analysis, nodes: readonly (TSESTree.Node | null)[], env: Env, depth: number): UnstableSource | null {
  for (const node of nodes) {
    if (!node) continue;
    const found = trace(analysis, node.type === AST_NODE_TYPES.SpreadElement ? node.argument : node, env, depth + 1);
    if (found) return found;
  }
  return null;
}

function compute(analysis: Analysis, node: TSESTree.Node, env: Env, depth: number): UnstableSource | null {
  switch (node.type) {
    case AST_NODE_TYPES.TemplateLiteral:
      return first(analysis, node.expressions, env, depth);
    case AST_NODE_TYPES.TaggedTemplateExpression:
      return first(analysis, node.quasi.expressions, env, depth);
    case AST_NODE_TYPES.BinaryExpression:
    case AST_NODE_TYPES.LogicalExpression:
      return first(analysis, [node.left, node.right], env, depth);
    case AST_NODE_TYPES.ConditionalExpression:
      return first(analysis, [node.consequent, node.alternate], env, depth);
    case AST_NODE_TYPES.ArrayExpression:
      return first(analysis, node.elements, env, depth);
    case AST_NODE_TYPES.ObjectExpression:
      return first(
        analysis,
        node.properties.map((property) => (property.type === AST_NODE_TYPES.Property ? property.value : property.argument)),
        env,
        depth,
      );
    case AST_NODE_TYPES.SequenceExpression:
      return first(analysis, node.expressions.slice(-1), env, depth);
    case AST_NODE_TYPES.AssignmentExpression:
      return trace(analysis, node.right, env, depth + 1);
    case AST_NODE_TYPES.UnaryExpression:
      return node.operator === "-" || node.operator === "+" || node.operator === "~" ? trace(analysis, node.argument, env, depth + 1) : null;
    case AST_NODE_TYPES.Identifier:
      return identifierSource(analysis, node, env, depth);
    case AST_NODE_TYPES.MemberExpression: {
      const name = staticName(node);
      if (name === null) return first(analysis, [node.object], env, depth);
      return pathSource(analysis, node.object, env, [name], node, depth);
    }
    case AST_NODE_TYPES.CallExpression:
      return callSource(analysis, node, env, depth);
    case AST_NODE_TYPES.NewExpression: {
      const origin = moduleOrigin(analysis.sourceCode, node.callee);
      if (origin?.module === "<global>" && origin.path.join(".") === "Date" && node.arguments.length === 0) return { ...NEW_DATE, node };
      return first(analysis, node.arguments, env, depth);
    }
    default:
      return null;
  }
}

function identifierSource(analysis: Analysis, identifier: TSESTree.Identifier, env: Env, depth: number): UnstableSource | null {
  const binding = bindingOf(analysis.sourceCode, identifier);
  if (!binding) return null;
  const { definition } = binding;
  const name = definition.name as TSESTree.Identifier;
  if (definition.type === "Variable" && definition.node.type === AST_NODE_TYPES.VariableDeclarator) {
    const declarator = definition.node;
    const { id, init } = declarator;
    const path = patternPath(id, name);
    if (path === null) return null;
    const fallback = defaultSource(analysis, id, name, env, depth);
    if (fallback) return fallback;
    if (!init) return loopElementSource(analysis, declarator, path, identifier, env);
    return pathSource(analysis, init, env, path, identifier, depth);
  }
  if (definition.type === "Parameter" && isFunction(definition.node)) {
    const parameter = parameterOf(definition.node, name);
    if (!parameter) return null;
    const fallback = defaultSource(analysis, definition.node.params[parameter.index]!, name, env, depth);
    if (fallback) return fallback;
    const path = patternPath(parameter.pattern, name) ?? [];
    const bound = env.get(parameter.pattern);
    if (bound) return pathSource(analysis, bound.value, bound.env, path, identifier, depth);
    const destructured = metadataStep(analysis, path, null, env);
    if (destructured) return { ...destructured, node: identifier };
    return env.size === 0 ? callSiteSource(analysis, definition.node, parameter.index, path, depth) : null;
  }
  return null;
}

/** A default the pattern gives the name (`{ ref = randomUUID() }`, `key = Date.now()`): used whenever the value is absent. */
function defaultSource(analysis: Analysis, pattern: TSESTree.Node, name: TSESTree.Identifier, env: Env, depth: number): UnstableSource | null {
  switch (pattern.type) {
    case AST_NODE_TYPES.AssignmentPattern:
      if (!contains(pattern.left, name)) return null;
      return trace(analysis, pattern.right, env, depth + 1) ?? defaultSource(analysis, pattern.left, name, env, depth);
    case AST_NODE_TYPES.TSParameterProperty:
      return defaultSource(analysis, pattern.parameter, name, env, depth);
    case AST_NODE_TYPES.ObjectPattern:
      for (const property of pattern.properties) {
        const inner = property.type === AST_NODE_TYPES.Property ? property.value : property.argument;
        if (contains(inner, name)) return defaultSource(analysis, inner, name, env, depth);
      }
      return null;
    case AST_NODE_TYPES.ArrayPattern:
      for (const element of pattern.elements) {
        if (element && contains(element, name)) return defaultSource(analysis, element, name, env, depth);
      }
      return null;
    default:
      return null;
  }
}

function contains(outer: TSESTree.Node, inner: TSESTree.Node): boolean {
  return outer.range[0] <= inner.range[0] && inner.range[1] <= outer.range[1];
}

/** `for (const { messageId } of messages)`: a name destructured from each element of a loop over messages. */
function loopElementSource(
  analysis: Analysis,
  declarator: TSESTree.VariableDeclarator,
  path: readonly PathStep[],
  at: TSESTree.Node,
  env: Env,
): UnstableSource | null {
  const loop = declarator.parent.parent;
  if (loop?.type !== AST_NODE_TYPES.ForOfStatement || loop.left !== declarator.parent) return null;
  if (isFromMessageBody(analysis, loop.right, env)) return null;
  const found = metadataStep(analysis, path, declarator.id, env);
  return found ? { ...found, node: at } : null;
}

/**
 * Reads `path` out of `value`: a step that names unstable message metadata reports at once (unless the object is the
 * message body); a step into an object or array literal follows that property; anything else keeps the whole value.
 */
function pathSource(
  analysis: Analysis,
  value: TSESTree.Node,
  env: Env,
  path: readonly PathStep[],
  at: TSESTree.Node,
  depth: number,
): UnstableSource | null {
  let current = unwrap(value);
  let currentEnv = env;
  for (const step of path) {
    const metadata = metadataStep(analysis, [step], current, currentEnv);
    if (metadata) return { ...metadata, node: at };
    const literal = literalOf(analysis, current, currentEnv);
    const member = literal ? memberOf(literal.node, step) : null;
    if (literal && member) {
      current = unwrap(member);
      currentEnv = literal.env;
    } else if (literal) {
      return null;
    }
  }
  return trace(analysis, current, currentEnv, depth + 1);
}

/** An unstable metadata property read from something that may be a Service Bus message, or another broker's delivery identity. */
function metadataStep(analysis: Analysis, path: readonly PathStep[], object: TSESTree.Node | null, env: Env): Omit<UnstableSource, "node"> | null {
  for (const step of path) {
    if (typeof step !== "string") continue;
    const why = UNSTABLE_MESSAGE_PROPERTIES.get(step);
    if (why === undefined) {
      const other = deliveryIdentity(analysis, step, object);
      if (other === null) continue;
      return object && isFromMessageBody(analysis, object, env) ? null : other;
    }
    if (object && !mayBeServiceBusMessage(analysis, object, env)) return null;
    return { source: step, why };
  }
  return null;
}

function mayBeServiceBusMessage(analysis: Analysis, object: TSESTree.Node, env: Env): boolean {
  if (isFromMessageBody(analysis, object, env)) return false;
  const typed = analysis.oracle?.is(object, "serviceBusMessage");
  if (typed !== undefined) return typed;
  const target = unwrap(object);
  if (target.type !== AST_NODE_TYPES.Identifier) return true;
  const declared = bindingOf(analysis.sourceCode, target)?.definition.name;
  const typeName = declared ? annotatedTypeName(declared) : null;
  return typeName === null || /ServiceBus\w*Message/.test(typeName);
}

/** The object or array literal a value is, through bindings, with the bindings its members are read in. */
function literalOf(analysis: Analysis, node: TSESTree.Node, env: Env): { node: TSESTree.ObjectExpression | TSESTree.ArrayExpression; env: Env } | null {
  const target = unwrap(node);
  if (target.type === AST_NODE_TYPES.ObjectExpression || target.type === AST_NODE_TYPES.ArrayExpression) return { node: target, env };
  if (target.type !== AST_NODE_TYPES.Identifier) return null;
  const binding = bindingOf(analysis.sourceCode, target);
  const declarator = binding?.definition.node;
  if (declarator?.type === AST_NODE_TYPES.VariableDeclarator && declarator.id.type === AST_NODE_TYPES.Identifier && declarator.init) {
    return literalOf(analysis, declarator.init, env);
  }
  return null;
}

function memberOf(literal: TSESTree.ObjectExpression | TSESTree.ArrayExpression, step: PathStep): TSESTree.Node | null {
  if (literal.type === AST_NODE_TYPES.ArrayExpression) {
    const element = typeof step === "number" ? literal.elements[step] : null;
    return element && element.type !== AST_NODE_TYPES.SpreadElement ? element : null;
  }
  let found: TSESTree.Node | null = null;
  for (const property of literal.properties) {
    if (property.type === AST_NODE_TYPES.SpreadElement) return null; // a later spread may override: stop here
    if (staticName(property) === String(step)) found = property.value;
  }
  return found;
}

function callSource(analysis: Analysis, call: TSESTree.CallExpression, env: Env, depth: number): UnstableSource | null {
  const origin = moduleOrigin(analysis.sourceCode, call.callee);
  const known = origin ? unstableCall(origin, call.arguments.length) : null;
  if (known) return { ...known, node: call };
  const generated = generatorOf(analysis, call.callee);
  if (generated) return { ...generated, node: call };
  const fn = calledFunction(analysis, call.callee);
  if (fn) {
    const bound = bindArguments(fn, call.arguments, env);
    for (const value of returnedExpressions(analysis.sourceCode, fn)) {
      const found = trace(analysis, value, bound, depth + 1);
      if (found) return found;
    }
    return null;
  }
  const imported = importedFunction(analysis, call.callee);
  if (imported) return importedSource(imported, call);
  const callee = unwrap(call.callee);
  if (callee.type === AST_NODE_TYPES.MemberExpression) {
    const fromObject = trace(analysis, callee.object, env, depth + 1);
    if (fromObject) return fromObject;
    if (LOOKUPS.test(staticName(callee) ?? "")) return null;
  }
  return first(analysis, call.arguments, env, depth);
}

/**
 * A function of another module of the project: what it returns, traced in that module with its own scopes (its
 * parameters stay unknown: the arguments are this file's). Reported on this file's call, naming the function.
 */
function importedSource(imported: ImportedFunction, call: TSESTree.CallExpression): UnstableSource | null {
  const { analysis } = imported.module;
  for (const value of returnedExpressions(analysis.sourceCode, imported.fn)) {
    const found = unstableSourceOf(analysis, value);
    if (found) return { ...found, source: `${found.source}, returned by ${imported.name}() (${imported.where})`, node: call };
  }
  return null;
}

/** `const id = customAlphabet(alphabet, 12); id()`, `const next = monotonicFactory(); next()` */
function generatorOf(analysis: Analysis, callee: TSESTree.Node): Instability | null {
  const target = unwrap(callee);
  if (target.type !== AST_NODE_TYPES.Identifier || isGlobalReference(analysis.sourceCode, target)) return null;
  const declarator = bindingOf(analysis.sourceCode, target)?.definition.node;
  if (declarator?.type !== AST_NODE_TYPES.VariableDeclarator || !declarator.init) return null;
  const init = unwrap(declarator.init);
  if (init.type !== AST_NODE_TYPES.CallExpression) return null;
  const origin = moduleOrigin(analysis.sourceCode, init.callee);
  return origin ? generatorFactory(origin) : null;
}

/**
 * A parameter of a same-file function that no analysed call bound: look at the file's own calls of that function.
 * Only functions called by name are followed; a parameter of an exported or callback function stays unknown.
 */
function callSiteSource(
  analysis: Analysis,
  fn: FunctionNode,
  index: number,
  path: readonly PathStep[],
  depth: number,
): UnstableSource | null {
  const name = functionName(fn);
  if (!name) return null;
  const variable = analysis.sourceCode.getDeclaredVariables(name.declaration).find((candidate) => candidate.name === name.id.name);
  for (const reference of variable?.references ?? []) {
    const call = reference.identifier.parent;
    if (call?.type !== AST_NODE_TYPES.CallExpression || call.callee !== reference.identifier) continue;
    const argument = call.arguments[index];
    if (!argument || argument.type === AST_NODE_TYPES.SpreadElement) continue;
    const found = pathSource(analysis, argument, EMPTY_ENV, path, argument, depth + 1);
    if (found) return found;
  }
  return null;
}

function functionName(fn: FunctionNode): { id: TSESTree.Identifier; declaration: TSESTree.Node } | null {
  if (fn.type === AST_NODE_TYPES.FunctionDeclaration && fn.id) return { id: fn.id, declaration: fn };
  const parent = fn.parent;
  if (parent?.type === AST_NODE_TYPES.VariableDeclarator && parent.id.type === AST_NODE_TYPES.Identifier && parent.init === fn) {
    return { id: parent.id, declaration: parent };
  }
  return null;
}
