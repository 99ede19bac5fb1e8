import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "../../utils/analysis.js";
import { moduleOrigin } from "../../utils/module-origin.js";
import { nodeTest } from "../../utils/reach.js";
import { calleeName, staticName } from "../../utils/static-name.js";
import { staticText } from "../../utils/static-text.js";
import { stripeCall } from "../../utils/stripe-call.js";
import { stripeClientVerdict } from "../../utils/stripe-client.js";
import { unwrap } from "../../utils/unwrap.js";

/** SQL that records something: an insert, an update, an upsert or a merge. */
const SQL_WRITE = /\b(insert\s+into|update\s+[\w."]+\s+set|on\s+conflict|merge\s+into|upsert)\b/i;

/** Drivers' query methods (pg, mysql2, pg-promise, better-sqlite3, Prisma raw, postgres.js `unsafe`). */
const SQL_METHODS = new Set([
  "query",
  "execute",
  "exec",
  "run",
  "none",
  "one",
  "oneOrNone",
  "many",
  "manyOrNone",
  "any",
  "result",
  "unsafe",
  "$executeRaw",
  "$executeRawUnsafe",
  "$queryRaw",
  "$queryRawUnsafe",
]);

/** ORM writes (TypeORM, Prisma, Sequelize, Mongoose, MikroORM, Drizzle, Knex). */
const ORM_METHODS = new Set([
  "save",
  "insert",
  "create",
  "upsert",
  "update",
  "insertOne",
  "insertMany",
  "updateOne",
  "updateMany",
  "createMany",
  "bulkCreate",
  "persist",
  "persistAndFlush",
]);

/** Receivers that have methods of those names but write nothing: hashes, builtins, message brokers. */
const NOT_A_DATABASE = /hash|hmac|cipher|digest|receiver|sender|stripe|^(Object|Reflect|Promise|Array|Map|Set|JSON|Math)$/i;

/** A database write that records the outcome of a charge. */
export const databaseWrite = nodeTest("database-write", (analysis, node) => {
  if (node.type === AST_NODE_TYPES.TaggedTemplateExpression) {
    return SQL_WRITE.test(node.quasi.quasis.map((quasi) => quasi.value.raw).join("?"));
  }
  if (node.type !== AST_NODE_TYPES.CallExpression) return false;
  const method = calleeName(node);
  if (method === null) return false;
  if (SQL_METHODS.has(method)) {
    const [sql] = node.arguments;
    const text = sql ? staticText(analysis.sourceCode, sql) : null;
    return text !== null && SQL_WRITE.test(text);
  }
  if (!ORM_METHODS.has(method) || node.callee.type !== AST_NODE_TYPES.MemberExpression) return false;
  return isDatabaseObject(analysis, node, node.callee.object);
});

function isDatabaseObject(analysis: Analysis, call: TSESTree.CallExpression, object: TSESTree.Node): boolean {
  if (stripeCall(analysis, call)) return false;
  const target = unwrap(object);
  if (stripeClientVerdict(analysis, target) === "stripe") return false;
  for (let current: TSESTree.Node = target; ; ) {
    if (current.type === AST_NODE_TYPES.Identifier) return !NOT_A_DATABASE.test(current.name);
    if (current.type === AST_NODE_TYPES.ThisExpression) return true;
    if (current.type === AST_NODE_TYPES.MemberExpression) {
      if (NOT_A_DATABASE.test(staticName(current) ?? "")) return false;
      current = unwrap(current.object);
      continue;
    }
    if (current.type === AST_NODE_TYPES.CallExpression) {
      const origin = moduleOrigin(analysis.sourceCode, current.callee);
      if (origin?.module === "crypto") return false;
      const name = calleeName(current);
      if (name !== null && NOT_A_DATABASE.test(name)) return false;
      if (current.callee.type !== AST_NODE_TYPES.MemberExpression) return true;
      current = unwrap(current.callee.object);
      continue;
    }
    return false;
  }
}
