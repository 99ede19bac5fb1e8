import path from "node:path";
import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "./analysis.js";
import { moduleOrigin } from "./module-origin.js";
import { resolveSpecifier } from "./module-resolution.js";
import { exportedFunction, type ProjectModule } from "./project-module.js";
import type { FunctionNode } from "./walk.js";

/** A function of another module of the project that a call in the linted file runs. */
export interface ImportedFunction {
  module: ProjectModule;
  fn: FunctionNode;
  /** How the call names it (`buildOptions`, `billing.sendUsage`). */
  name: string;
  /** Its file relative to the linted file's directory, as a reviewer reads it in a message (`../lib/stripe.ts`). */
  where: string;
}

/**
 * What `callee` runs when it is a function exported by a module of the project (a relative import or a tsconfig path
 * alias, re-exports followed): `import { buildOptions } from "./stripe-options"`, `import * as billing from
 * "@/billing"; billing.sendUsage()`. `null` for a package, a local function or a module that cannot be read.
 */
export function importedFunction(analysis: Analysis, callee: TSESTree.Node): ImportedFunction | null {
  return analysis.memo("imported-function", callee, () => resolveImported(analysis, callee), null);
}

function resolveImported(analysis: Analysis, callee: TSESTree.Node): ImportedFunction | null {
  // Most calls name nothing the file imports (`this.repo.find()`, `JSON.stringify()`, a local function): answered by
  // a set lookup, before any scope walk or file system call.
  const root = rootName(callee);
  if (root === null || !importedNames(analysis).has(root)) return null;
  const origin = moduleOrigin(analysis.sourceCode, callee);
  if (!origin || origin.module === "<global>" || origin.path.length > 1) return null;
  // One resolution per imported name and file, not per call.
  const byName = resolvedByName.get(analysis) ?? new Map<string, Omit<ImportedFunction, "name"> | null>();
  resolvedByName.set(analysis, byName);
  const key = `${origin.module}\0${origin.path[0] ?? "default"}`;
  if (!byName.has(key)) byName.set(key, resolveExport(analysis, origin.module, origin.path[0] ?? "default"));
  const found = byName.get(key);
  return found ? { ...found, name: analysis.sourceCode.getText(callee) } : null;
}

const resolvedByName = new WeakMap<Analysis, Map<string, Omit<ImportedFunction, "name"> | null>>();

function resolveExport(analysis: Analysis, specifier: string, exported: string): Omit<ImportedFunction, "name"> | null {
  const file = resolveSpecifier(analysis.filename, specifier);
  if (!file || file === analysis.filename) return null;
  const found = exportedFunction(file, exported);
  if (!found) return null;
  const where = path.relative(path.dirname(analysis.filename), found.module.file).split(path.sep).join("/");
  return { ...found, where: where.startsWith(".") ? where : `./${where}` };
}

/** The name a callee starts from: `sendUsage` of `sendUsage()`, `billing` of `billing.usage.send()`. */
function rootName(callee: TSESTree.Node): string | null {
  let node = callee;
  while (node.type === AST_NODE_TYPES.MemberExpression) node = node.object;
  return node.type === AST_NODE_TYPES.Identifier ? node.name : null;
}

const importedByFile = new WeakMap<Analysis, Set<string>>();

/**
 * The file's top-level names that hold something imported: import bindings, `require(...)` results (destructured
 * too), and names initialised from those (`const { send } = billing`), to a fixed point.
 */
function importedNames(analysis: Analysis): Set<string> {
  const known = importedByFile.get(analysis);
  if (known) return known;
  const names = new Set<string>();
  const global = analysis.sourceCode.scopeManager?.globalScope;
  const variables = [...(global?.variables ?? []), ...(global?.childScopes[0]?.type === "module" ? global.childScopes[0].variables : [])];
  for (let changed = true; changed; ) {
    changed = false;
    for (const variable of variables) {
      if (names.has(variable.name) || !variable.defs.some((definition) => definition.type === "ImportBinding" || fromImported(definition.node, names))) continue;
      names.add(variable.name);
      changed = true;
    }
  }
  importedByFile.set(analysis, names);
  return names;
}

function fromImported(declarator: TSESTree.Node, names: ReadonlySet<string>): boolean {
  if (declarator.type !== AST_NODE_TYPES.VariableDeclarator || !declarator.init) return false;
  let init: TSESTree.Node = declarator.init;
  while (init.type === AST_NODE_TYPES.AwaitExpression) init = init.argument;
  if (init.type === AST_NODE_TYPES.CallExpression && init.callee.type === AST_NODE_TYPES.Identifier && init.callee.name === "require") return true;
  if (init.type === AST_NODE_TYPES.ImportExpression) return true;
  const root = rootName(init);
  return root !== null && names.has(root);
}

