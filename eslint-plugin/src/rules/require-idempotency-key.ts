import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import { createRule } from "../create-rule.js";
import { isTestFile } from "../utils/test-file.js";
import { analysisFor, type Analysis } from "../utils/analysis.js";
import { withFileIndex } from "../utils/file-index.js";
import { consequenceOf } from "../utils/consequence.js";
import { unkeyedCallsOf } from "../utils/function-summary.js";
import { idempotencyKeyOf, meterIdentifierOf, optionsArgument } from "../utils/idempotency-key.js";
import { importedFunction } from "../utils/imported-function.js";
import { repeatWording } from "../utils/message-context.js";
import { staticName } from "../utils/static-name.js";
import { MONEY_MOVING_METHODS, stripeCall, type StripeCall } from "../utils/stripe-call.js";
import { guardKeyExpression, handlerKeyExpression, webhookKeyExpression, withStableKeyImport } from "../utils/stable-key-fix.js";
import { typeCheckedSchema, type TypeCheckedOption } from "../utils/type-checked-option.js";

export default createRule<[TypeCheckedOption], "missingKey" | "keyOnSomePaths" | "missingIdentifier" | "identifierOnSomePaths" | "helperWithoutKey" | "addStableKey" | "addGuardKey" | "addEventKey">({
  name: "require-idempotency-key",
  meta: {
    type: "problem",
    hasSuggestions: true,
    docs: {
      description: "Require an idempotency key on every Stripe call that moves money",
      recommended: true,
    },
    messages: {
      missingKey:
        "{{resource}}.{{method}}() moves money without an idempotency key: stripe-node then sends a random stripe-node-retry-<uuid> key per call, so {{repeat}} {{consequence}}. {{advice}}",
      keyOnSomePaths:
        "{{resource}}.{{method}}() moves money with an idempotency key on some paths only: where the options carry none, stripe-node sends a random key per call, so {{repeat}} {{consequence}}. Pass the same stable key on every path.",
      missingIdentifier:
        "{{resource}}.{{method}}() records {{events}} without an identifier: Stripe then makes up a new one per call, so {{repeat}} counts the usage twice. Set identifier from the event's business fields: it is how Stripe deduplicates meter events (a repeat answers 400 'An event already exists'), and cancelling an event needs it.",
      identifierOnSomePaths:
        "{{resource}}.{{method}}() records {{events}} with an identifier on some paths only: where it is absent, Stripe makes up a new one per call, so {{repeat}} counts the usage twice. Set the same stable identifier on every path.",
      helperWithoutKey:
        "{{helper}}() ({{where}}) calls {{resource}}.{{method}}() without {{what}}{{paths}}: a call through it is a Stripe call, so {{repeat}} {{consequence}}. Give {{helper}}() the {{field}} from the event's business fields and pass it to {{resource}}.{{method}}().",
      addGuardKey:
        "Pass the idempotency key the guard hands this callback ({{key}}): the billing record and Stripe then share one key.",
      addEventKey:
        "Key this call on the webhook event's id ({{key}}): Stripe sends the same event, with the same id, when it retries the webhook.",
      addStableKey:
        "Key this call on the message body with stableKey() from chargeguard/runtime (two messages with the same body then count as one for Stripe's 24 hours: the body must identify one billing event, such as an invoice or an order and its period).",
    },
    schema: [typeCheckedSchema],
    defaultOptions: [{ typeChecked: false }],
  },
  create(context, [options]) {
    // A test runs against mocks or Stripe's test mode: no money moves twice (utils/test-file.ts).
    if (isTestFile(context.filename)) return {};
    const analysis = analysisFor(context, options.typeChecked === true);
    // Looked at when the file has been traversed: the analyses read the file's index, complete by then.
    const candidates: (TSESTree.CallExpression & { callee: TSESTree.MemberExpression })[] = [];
    const helperCalls: TSESTree.CallExpression[] = [];

    /** A call of a project function from another module that charges without a key: reported here, where it is called. */
    function checkHelper(node: TSESTree.CallExpression): void {
      const imported = importedFunction(analysis, node.callee);
      const [unkeyed] = imported ? unkeyedCallsOf(imported) : [];
      if (!imported || !unkeyed) return;
      const identifier = unkeyed.missing === "identifier";
      context.report({
        node: node.callee,
        messageId: "helperWithoutKey",
        data: {
          helper: imported.name,
          where: imported.where,
          resource: unkeyed.info.resource,
          method: unkeyed.info.method,
          what: identifier ? "a meter event identifier" : "an idempotency key",
          paths: unkeyed.partial ? " on some paths" : "",
          repeat: repeatWording(analysis),
          consequence: consequenceOf(unkeyed.info.resource, unkeyed.info.method),
          field: identifier ? "identifier" : "idempotency key",
        },
      });
    }

    return withFileIndex(context.sourceCode, {
      CallExpression(node) {
        if (node.callee.type === AST_NODE_TYPES.Identifier || node.callee.type === AST_NODE_TYPES.MemberExpression) helperCalls.push(node);
        if (node.callee.type !== AST_NODE_TYPES.MemberExpression) return;
        const method = staticName(node.callee);
        if (method !== null && MONEY_MOVING_METHODS.has(method)) candidates.push(node as TSESTree.CallExpression & { callee: TSESTree.MemberExpression });
      },
      "Program:exit"() {
        candidates.forEach(check);
        helperCalls.forEach(checkHelper);
      },
    });

    function check(node: TSESTree.CallExpression & { callee: TSESTree.MemberExpression }): void {
      const info = stripeCall(analysis, node);
      if (!info?.moneyMoving) return;
      const identifier = meterIdentifierOf(analysis, node, info);
      if (identifier) {
        if (identifier.kind !== "missing" && identifier.kind !== "partial") return;
        context.report({
          node: node.callee.property,
          messageId: identifier.kind === "missing" ? "missingIdentifier" : "identifierOnSomePaths",
          data: {
            resource: info.resource,
            method: info.method,
            repeat: repeatWording(analysis),
            events: info.meterEvent === "stream" ? "Billing Meter events (an element of events)" : "a Billing Meter event",
          },
        });
        return;
      }
      const lookup = idempotencyKeyOf(analysis, node, info);
      if (lookup.kind !== "missing" && lookup.kind !== "partial") return;
      const guardKey = guardKeyExpression(node);
      // What is in scope first: the guard's key, then a webhook event's id, before a hash of the message body.
      const eventKey = guardKey ? null : webhookKeyExpression(analysis, node, info);
      const fix = lookup.kind === "missing" ? addKeyFix(analysis, node, guardKey ?? eventKey ?? handlerKeyExpression(analysis, node, info), (guardKey ?? eventKey) !== null) : null;
      context.report({
        node: node.callee.property,
        messageId: lookup.kind === "missing" ? "missingKey" : "keyOnSomePaths",
        data: { resource: info.resource, method: info.method, repeat: repeatWording(analysis), consequence: consequenceOf(info.resource, info.method), advice: adviceFor(node, info) },
        suggest: fix ? [guardKey ? { messageId: "addGuardKey", data: { key: guardKey }, fix } : eventKey ? { messageId: "addEventKey", data: { key: eventKey }, fix } : { messageId: "addStableKey", fix }] : [],
      });
    }
  },
});

export const PASS_OPTIONS = "Pass { idempotencyKey } derived from the event's business fields as the options argument (after the params).";
export const ADD_TO_OPTIONS = "Add idempotencyKey, derived from the event's business fields, to the options object this call already passes.";

/** Where the key goes: into the options object the call already writes, or a new options argument. */
function adviceFor(call: TSESTree.CallExpression, info: StripeCall): string {
  return optionsArgument(call, info)?.type === AST_NODE_TYPES.ObjectExpression ? ADD_TO_OPTIONS : PASS_OPTIONS;
}

/**
 * The options a keyless call gets: `create(params)` -> `create(params, { idempotencyKey: <key> })`, `create(params,
 * { stripeAccount })` -> `create(params, { idempotencyKey: <key>, stripeAccount })`; nothing else is mechanical.
 */
function addKeyFix(analysis: Analysis, call: TSESTree.CallExpression, key: string | null, inScope = false): TSESLint.ReportFixFunction | null {
  if (key === null) return null;
  // A key already in scope (the guard's) needs no import of stableKey.
  const withImport = (fixer: TSESLint.RuleFixer, fix: TSESLint.RuleFix) => (inScope ? [fix] : withStableKeyImport(analysis, fixer, fix));
  const entry = key === "idempotencyKey" ? key : `idempotencyKey: ${key}`;
  const [params, options, ...rest] = call.arguments;
  if (!params || rest.length > 0) return null;
  if (!options) return (fixer) => withImport(fixer, fixer.insertTextAfter(params, `, { ${entry} }`));
  if (options.type !== AST_NODE_TYPES.ObjectExpression) return null;
  const first = options.properties[0];
  return (fixer) =>
    withImport(fixer, first ? fixer.insertTextBefore(first, `${entry}, `) : fixer.replaceText(options, `{ ${entry} }`));
}
