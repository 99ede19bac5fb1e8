// Whether an object literal configures a Service Bus receiver: passed to `createReceiver`, `subscribe`,
// `acceptSession` or `acceptNextSession`, directly, through a `const`, or spread into one that is. A dead-letter
// receiver (inspection, resubmission) never runs the billing.
import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import { bindingOf } from "../../utils/binding.js";
import { calleeName, staticName } from "../../utils/static-name.js";
import { staticText } from "../../utils/static-text.js";

const RECEIVER_CALLS = new Set(["createReceiver", "subscribe", "acceptSession", "acceptNextSession"]);

/** `x as T`, `x satisfies T`: the value itself is used where the wrapper is. */
function outermostValue(node: TSESTree.Node): { node: TSESTree.Node; parent: TSESTree.Node | undefined } {
  let current = node;
  while (
    current.parent &&
    (current.parent.type === AST_NODE_TYPES.TSAsExpression ||
      current.parent.type === AST_NODE_TYPES.TSSatisfiesExpression ||
      current.parent.type === AST_NODE_TYPES.TSNonNullExpression)
  ) {
    current = current.parent;
  }
  return { node: current, parent: current.parent };
}

/** The object is passed to a receiver call, directly, through a `const`, or spread into one that is. */
export function isReceiverOptions(sourceCode: Readonly<TSESLint.SourceCode>, object: TSESTree.Node | undefined, depth = 0): boolean {
  if (!object || object.type !== AST_NODE_TYPES.ObjectExpression || depth > 4) return false;
  const { node: value, parent } = outermostValue(object);
  if (parent?.type === AST_NODE_TYPES.CallExpression) return parent.arguments.includes(value as never) && RECEIVER_CALLS.has(calleeName(parent) ?? "");
  if (parent?.type === AST_NODE_TYPES.SpreadElement) return isReceiverOptions(sourceCode, parent.parent, depth + 1);
  if (parent?.type === AST_NODE_TYPES.VariableDeclarator && parent.id.type === AST_NODE_TYPES.Identifier) {
    const variable = bindingOf(sourceCode, parent.id)?.variable;
    return (variable?.references ?? []).some((reference) => {
      const use = outermostValue(reference.identifier).parent;
      if (use?.type === AST_NODE_TYPES.CallExpression) return RECEIVER_CALLS.has(calleeName(use) ?? "");
      return use?.type === AST_NODE_TYPES.SpreadElement && isReceiverOptions(sourceCode, use.parent, depth + 1);
    });
  }
  return false;
}

/** A dead-letter queue receiver (`subQueueType: "deadLetter"`): inspection or resubmission, never the billing. */
export function readsDeadLetters(sourceCode: Readonly<TSESLint.SourceCode>, options: TSESTree.ObjectExpression): boolean {
  return options.properties.some(
    (property) =>
      property.type === AST_NODE_TYPES.Property &&
      staticName(property) === "subQueueType" &&
      staticText(sourceCode, property.value) === "deadLetter",
  );
}
