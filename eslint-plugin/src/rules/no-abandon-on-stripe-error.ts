import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import { createRule } from "../create-rule.js";
import { isTestFile } from "../utils/test-file.js";
import { analysisFor, type Analysis } from "../utils/analysis.js";
import { describe } from "../utils/describe.js";
import { withFileIndex } from "../utils/file-index.js";
import { canImport, withImport } from "../utils/import-fix.js";
import { moneyMovingCall } from "../utils/money-moving.js";
import { firstReaching } from "../utils/reach.js";
import { isSettlement } from "../utils/service-bus.js";
import { senderFor } from "./no-abandon-on-stripe-error/service-bus-sender.js";
import { calleeName, staticName } from "../utils/static-name.js";
import { typeCheckedSchema, type TypeCheckedOption } from "../utils/type-checked-option.js";
import { isFunction } from "../utils/walk.js";

/** The runtime's scheduled retry for a consumer's own catch block (runtime/handler/scheduled-retry.ts). */
const SCHEDULE_RETRY_MODULE = "chargeguard/runtime/handler";

type SuggestionId = "retryLater" | "deadLetterInstead";

export default createRule<[TypeCheckedOption], "abandonAfterCharge" | SuggestionId>({
  name: "no-abandon-on-stripe-error",
  meta: {
    type: "problem",
    hasSuggestions: true,
    docs: {
      description: "Disallow abandoning a Service Bus message when a Stripe charge in the same try may already exist",
      recommended: true,
    },
    messages: {
      abandonAfterCharge:
        "abandonMessage() after a failed `{{charge}}`: the message is redelivered at once, with no backoff, while the charge may already exist (a timeout does not mean Stripe did nothing). Record the outcome, then complete, dead-letter, or reschedule the event with a backoff.",
      retryLater:
        "Retry later instead: scheduleRetry (chargeguard/runtime/handler) schedules a copy of the event through `{{sender}}` (it must send to the queue the receiver reads) after the attempt's backoff, completes the original, and dead-letters the event past the last attempt. The retry must charge with the same stable key.",
      deadLetterInstead:
        "Dead-letter the message instead (reason StripeOutcomeUnknown): nothing retries it, so nothing charges again; reconcile with Stripe, then resubmit it with a stable key.",
    },
    schema: [typeCheckedSchema],
    defaultOptions: [{ typeChecked: false }],
  },
  create(context, [options]) {
    // A test runs against mocks or Stripe's test mode: no money moves twice (utils/test-file.ts).
    if (isTestFile(context.filename)) return {};
    const analysis = analysisFor(context, options.typeChecked === true);
    // Looked at when the file has been traversed: the analyses read the file's index, complete by then.
    const abandons: TSESTree.CallExpression[] = [];
    return withFileIndex(context.sourceCode, {
      CallExpression(node) {
        if (node.callee.type === AST_NODE_TYPES.MemberExpression && staticName(node.callee) === "abandonMessage") abandons.push(node);
      },
      "Program:exit"() {
        for (const node of abandons) {
          if (!isSettlement(analysis, node, "abandonMessage")) continue;
          const charge = chargeThatFailed(analysis, node);
          if (!charge) continue;
          context.report({
            node,
            messageId: "abandonAfterCharge",
            data: { charge: describe(analysis.sourceCode, charge) },
            suggest: [...retryFix(analysis, node), ...deadLetterFix(analysis, node)],
          });
        }
      },
    });
  },
});

/**
 * The money-moving call whose failure leads to `abandon`: in the `try` of an enclosing `catch`, or in the promise
 * chain an enclosing `.catch(handler)` / `.then(_, handler)` handles.
 */
function chargeThatFailed(analysis: Analysis, abandon: TSESTree.CallExpression): TSESTree.Node | null {
  let child: TSESTree.Node = abandon;
  for (let current: TSESTree.Node | undefined = abandon.parent; current; child = current, current = current.parent) {
    if (current.type === AST_NODE_TYPES.CatchClause) {
      const charge = firstReaching(analysis, current.parent.block, moneyMovingCall);
      if (charge) return charge;
    }
    if (isFunction(current)) {
      const handled = promiseHandledBy(current);
      if (handled) return firstReaching(analysis, handled, moneyMovingCall);
      if (current.type !== AST_NODE_TYPES.ArrowFunctionExpression) return null;
    }
    if (current.type === AST_NODE_TYPES.TryStatement && child === current.finalizer) return null;
  }
  return null;
}

/** For `p.catch(handler)` or `p.then(onOk, handler)`, the promise expression `p` the handler handles. */
function promiseHandledBy(handler: TSESTree.Node): TSESTree.Node | null {
  const call = handler.parent;
  if (call?.type !== AST_NODE_TYPES.CallExpression || call.callee.type !== AST_NODE_TYPES.MemberExpression) return null;
  const method = calleeName(call);
  const isHandler = (method === "catch" && call.arguments[0] === handler) || (method === "then" && call.arguments[1] === handler);
  return isHandler ? call.callee.object : null;
}

const DEAD_LETTER_OPTIONS =
  '{ deadLetterReason: "StripeOutcomeUnknown", deadLetterErrorDescription: "A Stripe call failed after it may have moved money: reconcile before resubmitting." }';

/**
 * `receiver.abandonMessage(message)` -> `scheduleRetry(receiver, sender, message)`, the import added: offered where
 * one Service Bus sender is in scope (see `senderFor`), the file is an ES module and `scheduleRetry` names nothing
 * else. Not offered when the abandon modifies properties (the copy would not carry them), spreads its arguments or
 * is an optional call (`receiver?.abandonMessage`: the retry would run where the abandon did not).
 */
function retryFix(analysis: Analysis, abandon: TSESTree.CallExpression): TSESLint.SuggestionReportDescriptor<SuggestionId>[] {
  const [message, ...rest] = abandon.arguments;
  const { callee } = abandon;
  if (!message || message.type === AST_NODE_TYPES.SpreadElement || rest.length > 0 || callee.type !== AST_NODE_TYPES.MemberExpression) return [];
  if (abandon.optional || callee.optional || callee.object.type === AST_NODE_TYPES.Super) return [];
  if (!canImport(analysis, "scheduleRetry", SCHEDULE_RETRY_MODULE)) return [];
  const sender = senderFor(analysis, abandon, callee.object);
  if (sender === null) return [];
  const text = (node: TSESTree.Node) => analysis.sourceCode.getText(node);
  const call = `scheduleRetry(${text(callee.object)}, ${sender}, ${text(message)})`;
  return [
    {
      messageId: "retryLater",
      data: { sender },
      fix: (fixer) => withImport(analysis, fixer, fixer.replaceText(abandon, call), "scheduleRetry", SCHEDULE_RETRY_MODULE),
    },
  ];
}

/**
 * `receiver.abandonMessage(message)` -> `receiver.deadLetterMessage(message, { deadLetterReason, ... })`: the same
 * receiver and message, settled where nothing redelivers it. Not offered when the abandon passes properties to
 * modify (the dead letter would silently drop them) or spreads its arguments.
 */
function deadLetterFix(analysis: Analysis, abandon: TSESTree.CallExpression): TSESLint.SuggestionReportDescriptor<SuggestionId>[] {
  const [message, ...rest] = abandon.arguments;
  if (!message || message.type === AST_NODE_TYPES.SpreadElement || rest.length > 0 || abandon.callee.type !== AST_NODE_TYPES.MemberExpression) return [];
  const { property } = abandon.callee;
  const text = analysis.sourceCode.getText(message);
  return [
    {
      messageId: "deadLetterInstead",
      fix: (fixer) => [
        abandon.callee.type === AST_NODE_TYPES.MemberExpression && abandon.callee.computed
          ? fixer.replaceText(property, '"deadLetterMessage"')
          : fixer.replaceText(property, "deadLetterMessage"),
        fixer.replaceText(message, `${text}, ${DEAD_LETTER_OPTIONS}`),
      ],
    },
  ];
}
