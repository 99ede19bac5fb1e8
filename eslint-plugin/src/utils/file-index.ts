import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import { staticName } from "./static-name.js";
import { isFunction, walk, type FunctionNode } from "./walk.js";

/**
 * What the analyses look for inside function bodies, gathered once per file: its calls (and tagged templates, the
 * SQL of `sql\`...\``) and its `return` statements, each list in source order (a node before the nodes inside it).
 * Asking what a body runs is then a range lookup instead of another walk of the body, per body and per question: the
 * rules ask it of every function a settlement or a key reaches.
 */
export interface FileIndex {
  calls: (TSESTree.CallExpression | TSESTree.TaggedTemplateExpression)[];
  returns: TSESTree.ReturnStatement[];
  /**
   * Every name the file declares a function or a member under (functions, variables, methods, fields, object
   * properties): a call by any other name cannot run a function of this file, so nothing needs resolving.
   */
  declaredNames: Set<string>;
}

/** Complete indexes, by file. */
const indexes = new WeakMap<object, FileIndex>();
/** Indexes a rule's listeners are filling during ESLint's traversal, by file. */
const collecting = new WeakSet<object>();

const INDEXED = [
  AST_NODE_TYPES.CallExpression,
  AST_NODE_TYPES.TaggedTemplateExpression,
  AST_NODE_TYPES.ReturnStatement,
  AST_NODE_TYPES.FunctionDeclaration,
  AST_NODE_TYPES.FunctionExpression,
  AST_NODE_TYPES.VariableDeclarator,
  AST_NODE_TYPES.MethodDefinition,
  AST_NODE_TYPES.PropertyDefinition,
  AST_NODE_TYPES.Property,
] as const;

export function fileIndex(sourceCode: Readonly<TSESLint.SourceCode>): FileIndex {
  const known = indexes.get(sourceCode);
  if (known) return known;
  // Asked before the traversal ended, or no rule is collecting: one pass over ESLint's traversal steps.
  const index = emptyIndex();
  const steps = traversalSteps(sourceCode);
  if (steps) {
    for (const step of steps) if (step.kind === 1 && step.phase === 1) addTo(index, step.target as TSESTree.Node);
  } else {
    walk(sourceCode, sourceCode.ast, (node) => addTo(index, node));
  }
  indexes.set(sourceCode, index);
  return index;
}

type Listener = (node: never) => void;

/**
 * A rule's listeners, plus, for the first of the plugin's rules to ask for a file, listeners that fill the file's
 * index as ESLint's own traversal enters each node: complete when the program is left (that rule's `Program:exit`
 * runs before the later rules' ones), so analyses made at `Program:exit` read it without a pass of their own. Asked
 * any earlier, `fileIndex` builds it from ESLint's traversal steps instead: the same answer.
 */
export function withFileIndex<Listeners extends Record<string, Listener | undefined>>(
  sourceCode: Readonly<TSESLint.SourceCode>,
  listeners: Listeners,
): Listeners {
  if (indexes.has(sourceCode) || collecting.has(sourceCode)) return listeners;
  collecting.add(sourceCode);
  const index = emptyIndex();
  const merged: Record<string, Listener | undefined> = { ...listeners };
  for (const type of INDEXED) {
    const own = listeners[type] as ((node: TSESTree.Node) => void) | undefined;
    merged[type] = own
      ? (node: TSESTree.Node) => {
          addTo(index, node);
          own(node);
        }
      : (node: TSESTree.Node) => addTo(index, node);
  }
  const exit = listeners["Program:exit"] as ((node: TSESTree.Node) => void) | undefined;
  merged["Program:exit"] = (node: TSESTree.Node) => {
    if (!indexes.has(sourceCode)) indexes.set(sourceCode, index);
    exit?.(node);
  };
  return merged as Listeners;
}

function emptyIndex(): FileIndex {
  return { calls: [], returns: [], declaredNames: new Set() };
}

function addTo(index: FileIndex, node: TSESTree.Node): void {
  switch (node.type) {
    case AST_NODE_TYPES.CallExpression:
    case AST_NODE_TYPES.TaggedTemplateExpression:
      index.calls.push(node);
      break;
    case AST_NODE_TYPES.ReturnStatement:
      index.returns.push(node);
      break;
    case AST_NODE_TYPES.FunctionDeclaration:
    case AST_NODE_TYPES.FunctionExpression:
      if (node.id) index.declaredNames.add(node.id.name);
      break;
    case AST_NODE_TYPES.VariableDeclarator:
      if (node.id.type === AST_NODE_TYPES.Identifier) index.declaredNames.add(node.id.name);
      break;
    case AST_NODE_TYPES.MethodDefinition:
    case AST_NODE_TYPES.PropertyDefinition:
    case AST_NODE_TYPES.Property: {
      const name = staticName(node);
      if (name !== null) index.declaredNames.add(name);
      break;
    }
    default:
      break;
  }
}

/** One step of ESLint's traversal of the file: `kind` 1 visits a node, `phase` 1 on entering it. */
interface TraversalStep {
  kind: number;
  phase?: number;
  target: unknown;
}

/**
 * The steps ESLint took to run the rules (`SourceCode#traverse()`, ESLint 9+): computed once per file and cached by
 * ESLint, so reading them costs a pass over an array instead of a second walk of the tree.
 */
function traversalSteps(sourceCode: Readonly<TSESLint.SourceCode>): Iterable<TraversalStep> | null {
  const traverse = (sourceCode as { traverse?: () => Iterable<TraversalStep> }).traverse;
  return typeof traverse === "function" ? traverse.call(sourceCode) : null;
}

/** The nodes of `list` (in source order) that are `root` or inside it, in source order. */
export function within<T extends TSESTree.Node>(list: readonly T[], root: TSESTree.Node): T[] {
  const [start, end] = root.range;
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (list[middle]!.range[0] < start) low = middle + 1;
    else high = middle;
  }
  const found: T[] = [];
  // Nodes starting where `root` starts may be its ancestors (`f()()`): those end after it.
  for (let position = low; position < list.length && list[position]!.range[0] < end; position += 1) {
    if (list[position]!.range[1] <= end) found.push(list[position]!);
  }
  return found;
}

/** The function a node belongs to (arrow functions included), or `null` at the top level. */
export function enclosingFunction(node: TSESTree.Node): FunctionNode | null {
  for (let current = node.parent; current; current = current.parent) if (isFunction(current)) return current;
  return null;
}
