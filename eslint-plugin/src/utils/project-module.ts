import { readFileSync, statSync } from "node:fs";
import { parseForESLint } from "@typescript-eslint/parser";
import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import { SourceCode } from "eslint";
import { analysisOfSource, type Analysis } from "./analysis.js";
import { resolveSpecifier } from "./module-resolution.js";
import { staticName } from "./static-name.js";
import { unwrap } from "./unwrap.js";
import { isFunction, type FunctionNode } from "./walk.js";

/**
 * A module of the project read from disk and parsed once per lint run (per path and modification time, so an
 * editor's long-lived ESLint sees edits): its own analysis (scopes, bindings) and what it exports. This is the module
 * graph the rules follow across files when the config has no type information; with a program, the checker names
 * the file an import comes from and the same parse serves.
 */
export interface ProjectModule {
  file: string;
  analysis: Analysis;
  /** Exported name (`default` too) -> the exported declaration's value, or a re-export to follow. */
  exports: Map<string, TSESTree.Node | { from: string; name: string }>;
  /** `export * from "./x"` specifiers, in order. */
  starExports: string[];
}

const modules = new Map<string, { mtimeMs: number; module: ProjectModule | null }>();

/** Files past this size are generated or vendored code, not a billing helper: not parsed. */
const MAX_BYTES = 512 * 1024;

export function projectModule(file: string): ProjectModule | null {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile() || stat.size > MAX_BYTES) return null;
  const cached = modules.get(file);
  if (cached?.mtimeMs === stat.mtimeMs) return cached.module;
  modules.set(file, { mtimeMs: stat.mtimeMs, module: null }); // an import cycle meets "unknown", not a second parse
  const module = parseModule(file);
  modules.set(file, { mtimeMs: stat.mtimeMs, module });
  return module;
}

function parseModule(file: string): ProjectModule | null {
  const text = readFileSync(file, "utf8");
  let parsed: ReturnType<typeof parseForESLint>;
  try {
    parsed = parseForESLint(text, { filePath: file, sourceType: "module", range: true, loc: true, tokens: true, comment: true, jsx: /\.[jt]sx$/.test(file) });
  } catch {
    return null; // a file that does not parse says nothing the rules could use
  }
  const sourceCode = new SourceCode({
    text,
    ast: parsed.ast as never,
    scopeManager: parsed.scopeManager as never,
    visitorKeys: parsed.visitorKeys as never,
    parserServices: {},
  }) as unknown as TSESLint.SourceCode;
  const module: ProjectModule = { file, analysis: analysisOfSource(sourceCode, file, null), exports: new Map(), starExports: [] };
  for (const statement of parsed.ast.body) collectExports(module, statement as TSESTree.ProgramStatement);
  return module;
}

function collectExports(module: ProjectModule, statement: TSESTree.ProgramStatement): void {
  if (statement.type === AST_NODE_TYPES.ExportAllDeclaration && !statement.exported) {
    module.starExports.push(statement.source.value);
    return;
  }
  if (statement.type === AST_NODE_TYPES.ExportDefaultDeclaration) {
    module.exports.set("default", statement.declaration);
    return;
  }
  if (statement.type === AST_NODE_TYPES.ExpressionStatement) {
    collectCommonJsExports(module, statement.expression);
    return;
  }
  if (statement.type !== AST_NODE_TYPES.ExportNamedDeclaration) return;
  const declaration = statement.declaration;
  if (declaration?.type === AST_NODE_TYPES.FunctionDeclaration && declaration.id) module.exports.set(declaration.id.name, declaration);
  if (declaration?.type === AST_NODE_TYPES.VariableDeclaration) {
    for (const declarator of declaration.declarations) {
      if (declarator.id.type === AST_NODE_TYPES.Identifier && declarator.init) module.exports.set(declarator.id.name, declarator.init);
    }
  }
  for (const specifier of statement.specifiers) {
    const local = specifier.local.type === AST_NODE_TYPES.Identifier ? specifier.local.name : String(specifier.local.value);
    const exported = specifier.exported.type === AST_NODE_TYPES.Identifier ? specifier.exported.name : String(specifier.exported.value);
    module.exports.set(exported, statement.source ? { from: statement.source.value, name: local } : specifier.local);
  }
}

/**
 * CommonJS exports, as an Express or Jest project writes them: `module.exports = { reportDocuments }` (each property
 * a named export; `require` of the module with destructuring or a member reads them), `module.exports = fn` (the
 * default), `module.exports.name = fn` and `exports.name = fn`.
 */
function collectCommonJsExports(module: ProjectModule, expression: TSESTree.Expression): void {
  if (expression.type !== AST_NODE_TYPES.AssignmentExpression || expression.operator !== "=") return;
  const target = expression.left;
  if (isModuleExports(target)) {
    if (expression.right.type !== AST_NODE_TYPES.ObjectExpression) {
      module.exports.set("default", expression.right);
      return;
    }
    for (const property of expression.right.properties) {
      const name = property.type === AST_NODE_TYPES.Property ? staticName(property) : null;
      if (name !== null && property.type === AST_NODE_TYPES.Property) module.exports.set(name, property.value);
    }
    return;
  }
  if (target.type !== AST_NODE_TYPES.MemberExpression) return;
  const base = target.object;
  const name = staticName(target);
  const exportsObject = isModuleExports(base) || (base.type === AST_NODE_TYPES.Identifier && base.name === "exports");
  if (exportsObject && name !== null) module.exports.set(name, expression.right);
}

const isModuleExports = (node: TSESTree.Node): boolean =>
  node.type === AST_NODE_TYPES.MemberExpression && node.object.type === AST_NODE_TYPES.Identifier && node.object.name === "module" && staticName(node) === "exports";

/** The function a module exports under `name`, re-exports followed (`export { x } from`, `export *`), or `null`. */
export function exportedFunction(file: string, name: string, depth = 0): { module: ProjectModule; fn: FunctionNode } | null {
  const module = depth < 8 ? projectModule(file) : null;
  if (!module) return null;
  const value = module.exports.get(name);
  if (value && "from" in value) {
    const next = resolveSpecifier(file, value.from);
    return next ? exportedFunction(next, value.name, depth + 1) : null;
  }
  if (value) {
    const fn = functionOf(module, value as TSESTree.Node);
    return fn ? { module, fn } : null;
  }
  for (const specifier of name === "default" ? [] : module.starExports) {
    const next = resolveSpecifier(file, specifier);
    const found = next ? exportedFunction(next, name, depth + 1) : null;
    if (found) return found;
  }
  return null;
}

/** A function value: the node itself, or the declaration a local name (`export { build }`, `export default build`) holds. */
function functionOf(module: ProjectModule, node: TSESTree.Node): FunctionNode | null {
  const target = unwrap(node);
  if (isFunction(target)) return target;
  if (target.type !== AST_NODE_TYPES.Identifier) return null;
  const variable = module.analysis.sourceCode.scopeManager?.globalScope?.childScopes[0]?.set.get(target.name) ?? module.analysis.sourceCode.scopeManager?.globalScope?.set.get(target.name);
  const definition = variable?.defs[0];
  if (definition?.type === "FunctionName" && isFunction(definition.node)) return definition.node;
  if (definition?.node.type === AST_NODE_TYPES.VariableDeclarator && definition.node.init) {
    const init = unwrap(definition.node.init);
    return isFunction(init) ? init : null;
  }
  return null;
}
