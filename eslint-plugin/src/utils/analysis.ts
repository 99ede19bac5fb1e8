import type { TSESLint, TSESTree } from "@typescript-eslint/utils";
import { typeOracle, type TypeOracle } from "./type-oracle.js";

/**
 * Per-file state shared by every rule that lints the file: the type oracle (typed mode only) and the caches
 * whose answers depend on it. Analyses are memoised per node, so seven rules pay for one.
 */
export interface Analysis {
  sourceCode: Readonly<TSESLint.SourceCode>;
  /** The linted file's path (absolute when ESLint lints a file on disk): relative imports are read from beside it. */
  filename: string;
  oracle: TypeOracle | null;
  memo<T>(table: string, node: TSESTree.Node, compute: () => T, whileComputing: T): T;
}

const perFile = new WeakMap<object, { plain?: Analysis; typed?: Analysis }>();

export function analysisFor(
  context: Readonly<TSESLint.RuleContext<string, readonly unknown[]>>,
  typeChecked: boolean,
): Analysis {
  const sourceCode = context.sourceCode;
  let entry = perFile.get(sourceCode);
  if (!entry) perFile.set(sourceCode, (entry = {}));
  const mode = typeChecked ? "typed" : "plain";
  const existing = entry[mode];
  if (existing) return existing;
  const analysis = analysisOfSource(sourceCode, context.filename, typeChecked ? typeOracle(context) : null);
  entry[mode] = analysis;
  return analysis;
}

/** Analyses by the program they read: a node of another module of the project is analysed with its own scopes. */
const byProgram = new WeakMap<TSESTree.Node, Analysis>();

/** An analysis of any parsed file: the linted one, or a module of the project read from disk (no oracle there). */
export function analysisOfSource(sourceCode: Readonly<TSESLint.SourceCode>, filename: string, oracle: TypeOracle | null): Analysis {
  const tables = new Map<string, WeakMap<TSESTree.Node, unknown>>();
  const analysis: Analysis = {
    sourceCode,
    filename,
    oracle,
    memo(table, node, compute, whileComputing) {
      let cache = tables.get(table);
      if (!cache) tables.set(table, (cache = new WeakMap()));
      const known = cache.get(node);
      if (known !== undefined || cache.has(node)) return known as never;
      cache.set(node, whileComputing); // a cycle sees the neutral answer instead of recursing forever
      const value = compute();
      cache.set(node, value);
      return value;
    },
  };
  byProgram.set(sourceCode.ast, analysis);
  return analysis;
}

/** The analysis that owns `node`: `analysis` for a node of its file, else the analysis of the module it was read from. */
export function analysisAt(analysis: Analysis, node: TSESTree.Node): Analysis {
  let root: TSESTree.Node = node;
  while (root.parent) root = root.parent;
  return root === analysis.sourceCode.ast ? analysis : (byProgram.get(root) ?? analysis);
}
