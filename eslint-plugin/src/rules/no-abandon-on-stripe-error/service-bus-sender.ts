import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "../../utils/analysis.js";
import { bindingOf } from "../../utils/binding.js";
import { calleeName } from "../../utils/static-name.js";
import { staticText } from "../../utils/static-text.js";
import { annotatedTypeName } from "../../utils/type-annotation.js";
import { unwrap } from "../../utils/unwrap.js";

/** Sender types by name: the SDK's, and the narrowing `chargeguard/runtime/handler` takes (`RetryScheduler`). */
const SENDER_TYPES = new Set(["ServiceBusSender", "RetryScheduler"]);

/**
 * The name of the one Service Bus sender visible at `node` through which a suggestion can schedule a retry of what
 * `receiver` received: a variable or parameter declared before it that `createSender(...)` made, annotated as a
 * sender, or (typed mode) typed `ServiceBusSender`. `null` when there is none, or several (which queue would the
 * retry go to?), or when the sender and the receiver were made for queues the code names differently.
 */
export function senderFor(analysis: Analysis, node: TSESTree.Node, receiver: TSESTree.Node): string | null {
  const senders: TSESLint.Scope.Variable[] = [];
  const seen = new Set<string>();
  for (let scope: TSESLint.Scope.Scope | null = analysis.sourceCode.getScope(node); scope; scope = scope.upper) {
    for (const variable of scope.variables) {
      if (seen.has(variable.name)) continue; // shadowed by an inner declaration
      seen.add(variable.name);
      if (isSender(analysis, variable, node)) senders.push(variable);
    }
  }
  const [sender] = senders;
  if (!sender || senders.length > 1) return null;
  return sameQueue(analysis, queueOf(sender.defs[0]?.node, "createSender"), receiverQueue(analysis, receiver)) ? sender.name : null;
}

const VALUE_DEFINITIONS = new Set<string>(["Variable", "Parameter"]);

function isSender(analysis: Analysis, variable: TSESLint.Scope.Variable, use: TSESTree.Node): boolean {
  const [definition] = variable.defs;
  if (!definition || variable.defs.length > 1 || definition.name.type !== AST_NODE_TYPES.Identifier) return false;
  // Values only: an imported type (`import type { ServiceBusSender }`) is no sender.
  if (!VALUE_DEFINITIONS.has(definition.type)) return false;
  if (definition.name.range[0] > use.range[0]) return false;
  const typeName = annotatedTypeName(definition.name);
  if (typeName !== null && SENDER_TYPES.has(typeName)) return true;
  if (queueOf(definition.node, "createSender") !== undefined) return true;
  return analysis.oracle?.is(definition.name, "serviceBusSender") === true;
}

/** The queue argument of `<client>.<factory>(queue)` a declarator is initialised with; `undefined` if it is not one. */
function queueOf(declarator: TSESTree.Node | undefined, factory: string): TSESTree.Node | undefined {
  if (declarator?.type !== AST_NODE_TYPES.VariableDeclarator || !declarator.init) return undefined;
  const init = unwrap(declarator.init);
  if (init.type !== AST_NODE_TYPES.CallExpression || calleeName(init) !== factory) return undefined;
  return init.arguments[0];
}

function receiverQueue(analysis: Analysis, receiver: TSESTree.Node): TSESTree.Node | undefined {
  const target = unwrap(receiver);
  if (target.type !== AST_NODE_TYPES.Identifier) return undefined;
  return queueOf(bindingOf(analysis.sourceCode, target)?.definition.node, "createReceiver");
}

/** Unknown on either side is not a difference; known on both, the texts (or else the code) must agree. */
function sameQueue(analysis: Analysis, senderQueue: TSESTree.Node | undefined, receiverQueue: TSESTree.Node | undefined): boolean {
  if (!senderQueue || !receiverQueue) return true;
  const sent = staticText(analysis.sourceCode, senderQueue);
  const received = staticText(analysis.sourceCode, receiverQueue);
  if (sent !== null && received !== null) return sent === received;
  return analysis.sourceCode.getText(senderQueue) === analysis.sourceCode.getText(receiverQueue);
}
