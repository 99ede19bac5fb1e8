import path from "node:path";
import type { TSESTree } from "@typescript-eslint/utils";
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
  const origin = moduleOrigin(analysis.sourceCode, callee);
  if (!origin || origin.module === "<global>" || origin.path.length > 1) return null;
  const file = resolveSpecifier(analysis.filename, origin.module);
  if (!file || file === analysis.filename) return null;
  const found = exportedFunction(file, origin.path[0] ?? "default");
  if (!found) return null;
  const name = analysis.sourceCode.getText(callee);
  const where = path.relative(path.dirname(analysis.filename), found.module.file).split(path.sep).join("/");
  return { ...found, name, where: where.startsWith(".") ? where : `./${where}` };
}

