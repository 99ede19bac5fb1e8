import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { createRule } from "../create-rule.js";
import { isTestFile } from "../utils/test-file.js";
import { analysisFor, type Analysis } from "../utils/analysis.js";
import { databaseWrite } from "./record-before-settle/database-write.js";
import { describe } from "../utils/describe.js";
import { withFileIndex } from "../utils/file-index.js";
import { mayRunAfter } from "./record-before-settle/flow-order.js";
import { moneyMovingCall } from "../utils/money-moving.js";
import { allReaching } from "../utils/reach.js";
import { isSettlement } from "../utils/service-bus.js";
import { calleeName, staticName } from "../utils/static-name.js";
import { typeCheckedSchema, type TypeCheckedOption } from "../utils/type-checked-option.js";
import { isFunction, type FunctionNode } from "../utils/walk.js";

/** Calls that run their callback inside a database transaction (pg helpers, Prisma, Knex, Sequelize, TypeORM, PGlite). */
const TRANSACTION = /^(\$?transaction|withTransaction|inTransaction|begin|tx|serializable)$/i;

export default createRule<[TypeCheckedOption], "completeBeforeRecord" | "completeInsideTransaction">({
  name: "record-before-settle",
  meta: {
    type: "problem",
    docs: {
      description: "Require the database write that records a Stripe charge to happen before the Service Bus message is completed",
      recommended: true,
    },
    messages: {
      completeBeforeRecord:
        "completeMessage() runs after `{{charge}}` but before the write that records it (`{{write}}`, line {{line}}): a crash or failed write in between leaves a charge with no billing record, and nothing stops the resubmitted event from charging again. Record first, then complete.",
      completeInsideTransaction:
        "completeMessage() runs inside the transaction that records `{{charge}}`: a settlement is a network call a rollback cannot undo, so a failed commit leaves the message gone and the charge unrecorded. Complete after the transaction commits.",
    },
    schema: [typeCheckedSchema],
    defaultOptions: [{ typeChecked: false }],
  },
  create(context, [options]) {
    // A test runs against mocks or Stripe's test mode: no money moves twice (utils/test-file.ts).
    if (isTestFile(context.filename)) return {};
    const analysis = analysisFor(context, options.typeChecked === true);
    // Looked at when the file has been traversed: the analyses read the file's index, complete by then.
    const settlements: TSESTree.CallExpression[] = [];
    return withFileIndex(context.sourceCode, {
      CallExpression(node) {
        if (node.callee.type === AST_NODE_TYPES.MemberExpression && staticName(node.callee) === "completeMessage") settlements.push(node);
      },
      "Program:exit"() {
        settlements.forEach(check);
      },
    });

    function check(node: TSESTree.CallExpression): void {
      if (!isSettlement(analysis, node, "completeMessage")) return;
      const scopes = enclosingScopes(node);
      const charge = scopes
        .flatMap((fn) => allReaching(analysis, fn.body, moneyMovingCall))
        .find((candidate) => mayRunAfter(candidate, node));
      if (!charge) return;
      const writes = scopes.flatMap((fn) => allReaching(analysis, fn.body, databaseWrite));
      // Recorded between the charge and the complete: a later write (an audit row) is not the record.
      const recorded = writes.some((candidate) => mayRunAfter(charge, candidate) && mayRunAfter(candidate, node));
      const write = recorded ? undefined : writes.find((candidate) => mayRunAfter(node, candidate));
      if (write) {
        context.report({
          node,
          messageId: "completeBeforeRecord",
          data: { charge: describe(analysis.sourceCode, charge), write: describe(analysis.sourceCode, write), line: write.loc.start.line },
        });
        return;
      }
      if (scopes.some((fn) => isTransactionCallback(fn) && writesInside(analysis, fn))) {
        context.report({ node, messageId: "completeInsideTransaction", data: { charge: describe(analysis.sourceCode, charge) } });
      }
    }
  },
});

/**
 * The function that runs the settlement, and the functions around it while it is a transaction callback (the
 * charge and the record may sit outside the callback).
 */
function enclosingScopes(node: TSESTree.Node): FunctionNode[] {
  const scopes: FunctionNode[] = [];
  for (let current = node.parent; current; current = current.parent) {
    if (!isFunction(current)) continue;
    scopes.push(current);
    if (!isTransactionCallback(current)) break;
  }
  return scopes;
}

function isTransactionCallback(fn: FunctionNode): boolean {
  const call = fn.parent;
  return call?.type === AST_NODE_TYPES.CallExpression && call.arguments.includes(fn as TSESTree.CallExpressionArgument) && TRANSACTION.test(calleeName(call) ?? "");
}

function writesInside(analysis: Analysis, fn: FunctionNode): boolean {
  return allReaching(analysis, fn.body, databaseWrite).length > 0;
}
