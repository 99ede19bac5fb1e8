import { ASTUtils, type TSESLint, type TSESTree } from "@typescript-eslint/utils";

type Definition = TSESLint.Scope.Definition;
type Variable = TSESLint.Scope.Variable;

/** An identifier's definition when it has exactly one and is never reassigned (so its value is knowable). */
export interface Binding {
  variable: Variable;
  definition: Definition;
}

const cache = new WeakMap<TSESTree.Identifier, Binding | null>();

/**
 * What each reference of the file resolves to, read once from the scope manager (ESLint resolves configured
 * globals into it too): the analyses ask about the same names again and again, and a lookup by name from the
 * innermost scope up costs a scope search per identifier.
 */
const resolutions = new WeakMap<object, Map<TSESTree.Node, Variable | null>>();

function resolutionsOf(sourceCode: Readonly<TSESLint.SourceCode>): Map<TSESTree.Node, Variable | null> {
  let resolved = resolutions.get(sourceCode);
  if (resolved) return resolved;
  resolved = new Map();
  for (const scope of sourceCode.scopeManager?.scopes ?? []) {
    for (const reference of scope.references) resolved.set(reference.identifier, reference.resolved);
  }
  resolutions.set(sourceCode, resolved);
  return resolved;
}

export function variableOf(sourceCode: Readonly<TSESLint.SourceCode>, identifier: TSESTree.Identifier): Variable | null {
  const resolved = resolutionsOf(sourceCode).get(identifier);
  if (resolved !== undefined) return resolved;
  // Not a reference (a declared name, a parameter): look it up by name.
  return ASTUtils.findVariable(sourceCode.getScope(identifier), identifier);
}

const neverReassigned = new WeakMap<Variable, boolean>();

export function bindingOf(sourceCode: Readonly<TSESLint.SourceCode>, identifier: TSESTree.Identifier): Binding | null {
  const cached = cache.get(identifier);
  if (cached !== undefined) return cached;
  const variable = variableOf(sourceCode, identifier);
  let binding: Binding | null = null;
  const definition = variable?.defs.length === 1 ? variable.defs[0] : undefined;
  if (variable && definition && isNeverReassigned(variable)) binding = { variable, definition };
  cache.set(identifier, binding);
  return binding;
}

/** Every write is the declaration's own initialiser; asked once per variable, not once per use of it. */
function isNeverReassigned(variable: Variable): boolean {
  let answer = neverReassigned.get(variable);
  if (answer === undefined) {
    answer = variable.references.every((reference) => !reference.isWrite() || reference.init === true);
    neverReassigned.set(variable, answer);
  }
  return answer;
}

/** A name no declaration in the file binds (a global such as `crypto`, `Date`, `Math`). */
export function isGlobalReference(sourceCode: Readonly<TSESLint.SourceCode>, identifier: TSESTree.Identifier): boolean {
  const variable = variableOf(sourceCode, identifier);
  return variable === null || variable.defs.length === 0;
}
