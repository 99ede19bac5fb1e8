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
  const tables = new Map<string, WeakMap<TSESTree.Node, unknown>>();
  const analysis: Analysis = {
    sourceCode,
    filename: context.filename,
    oracle: typeChecked ? typeOracle(context) : null,
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
  entry[mode] = analysis;
  return analysis;
}
