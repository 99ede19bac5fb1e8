import { ASTUtils, type TSESLint, type TSESTree } from "@typescript-eslint/utils";

type Definition = TSESLint.Scope.Definition;
type Variable = TSESLint.Scope.Variable;

/** An identifier's definition when it has exactly one and is never reassigned (so its value is knowable). */
export interface Binding {
  variable: Variable;
  definition: Definition;
}

const cache = new WeakMap<TSESTree.Identifier, Binding | null>();

export function variableOf(sourceCode: Readonly<TSESLint.SourceCode>, identifier: TSESTree.Identifier): Variable | null {
  return ASTUtils.findVariable(sourceCode.getScope(identifier), identifier);
}

export function bindingOf(sourceCode: Readonly<TSESLint.SourceCode>, identifier: TSESTree.Identifier): Binding | null {
  const cached = cache.get(identifier);
  if (cached !== undefined) return cached;
  const variable = variableOf(sourceCode, identifier);
  let binding: Binding | null = null;
  const definition = variable?.defs.length === 1 ? variable.defs[0] : undefined;
  if (variable && definition && variable.references.every((reference) => !reference.isWrite() || reference.init)) {
    binding = { variable, definition };
  }
  cache.set(identifier, binding);
  return binding;
}

/** A name no declaration in the file binds (a global such as `crypto`, `Date`, `Math`). */
export function isGlobalReference(sourceCode: Readonly<TSESLint.SourceCode>, identifier: TSESTree.Identifier): boolean {
  const variable = variableOf(sourceCode, identifier);
  return variable === null || variable.defs.length === 0;
}
