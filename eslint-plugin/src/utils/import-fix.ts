import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "./analysis.js";

/**
 * Whether a suggestion may call `name` imported from `module`: the file is an ES module (the import can be added)
 * and `name` is bound to nothing else in it (the suggestion would call that instead).
 */
export function canImport(analysis: Analysis, name: string, module: string): boolean {
  const body = analysis.sourceCode.ast.body;
  if (!body.some((statement) => statement.type === AST_NODE_TYPES.ImportDeclaration)) return false;
  const globalScope = analysis.sourceCode.scopeManager?.globalScope;
  const bindings = [globalScope?.set.get(name), globalScope?.childScopes[0]?.set.get(name)];
  return bindings.every(
    (bound) => bound === undefined || bound.defs.every((definition) => definition.parent?.type === AST_NODE_TYPES.ImportDeclaration && definition.parent.source.value === module),
  );
}

/**
 * `fix`, plus the import of `name` from `module` when the file does not have it: added to a named import of the
 * same module when there is one, else as its own line after the last import.
 */
export function withImport(analysis: Analysis, fixer: TSESLint.RuleFixer, fix: TSESLint.RuleFix, name: string, module: string): TSESLint.RuleFix[] {
  const imports = analysis.sourceCode.ast.body.filter((statement): statement is TSESTree.ImportDeclaration => statement.type === AST_NODE_TYPES.ImportDeclaration);
  const fromModule = imports.filter((statement) => statement.source.value === module && statement.importKind !== "type");
  if (fromModule.some((statement) => statement.specifiers.some((specifier) => specifier.local.name === name))) return [fix];
  const named = fromModule.flatMap((statement) => statement.specifiers).filter((specifier) => specifier.type === AST_NODE_TYPES.ImportSpecifier);
  const last = named.at(-1);
  if (last) return [fixer.insertTextAfter(last, `, ${name}`), fix];
  const lastImport = imports.at(-1);
  const line = `import { ${name} } from "${module}";`;
  return [lastImport ? fixer.insertTextAfter(lastImport, `\n${line}`) : fixer.insertTextBeforeRange([0, 0], `${line}\n`), fix];
}
