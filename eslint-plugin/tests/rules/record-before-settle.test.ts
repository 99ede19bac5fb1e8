import rule from "../../src/rules/record-before-settle.js";
import { cjsHeader, esmHeader, ruleTester } from "../rule-tester.js";

const beforeRecord = (charge: string, write: string, line: number) => ({
  messageId: "completeBeforeRecord" as const,
  data: { charge, write, line },
});
const insideTransaction = (charge: string) => ({ messageId: "completeInsideTransaction" as const, data: { charge } });

const dbHeader = `${esmHeader}
import pg from "pg";
const db = new pg.Pool();
`;

ruleTester.run("record-before-settle", rule, {
  valid: [
    {
      name: "record, then complete (the seeds' fix)",
      code: `${dbHeader}
async function handle(message: ServiceBusReceivedMessage) {
  const intent = await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
  await db.query("INSERT INTO billing_records (key, intent) VALUES ($1, $2) ON CONFLICT DO NOTHING", [message.body.key, intent.id]);
  await receiver.completeMessage(message);
}`,
    },
    {
      name: "no database write at all is not this rule's business",
      code: `${esmHeader}
async function handle(message: ServiceBusReceivedMessage) {
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
  await receiver.completeMessage(message);
}`,
    },
    {
      name: "complete before any Stripe call (already billed: skip)",
      code: `${dbHeader}
async function handle(message: ServiceBusReceivedMessage) {
  const existing = await db.query("SELECT 1 FROM billing_records WHERE key = $1", [message.body.key]);
  if (existing.rowCount) {
    await receiver.completeMessage(message);
    return;
  }
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
  await db.query("INSERT INTO billing_records (key) VALUES ($1)", [message.body.key]);
  await receiver.completeMessage(message);
}`,
    },
    {
      name: "a write in the other branch of an if does not follow the complete",
      code: `${dbHeader}
async function handle(message: ServiceBusReceivedMessage) {
  const intent = await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
  if (intent.status === "succeeded") {
    await db.query("UPDATE billing_records SET state = 'charged' WHERE key = $1", [message.body.key]);
    await receiver.completeMessage(message);
  } else {
    await db.query("UPDATE billing_records SET state = 'declined' WHERE key = $1", [message.body.key]);
    await receiver.completeMessage(message);
  }
}`,
    },
    {
      name: "reads after the complete are not records",
      code: `${dbHeader}
import { createHash } from "node:crypto";
async function handle(message: ServiceBusReceivedMessage) {
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
  await db.query("INSERT INTO billing_records (key) VALUES ($1)", [message.body.key]);
  await receiver.completeMessage(message);
  await db.query("SELECT count(*) FROM billing_records");
  createHash("sha256").update("audit");
  await stripe.paymentIntents.update("pi_1", { description: "settled" });
}`,
    },
    {
      name: "recorded before the complete; an audit row written after it is not the record",
      code: `${dbHeader}
async function handle(message: ServiceBusReceivedMessage) {
  const intent = await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
  await db.query("UPDATE billing_records SET state = 'charged', intent = $2 WHERE key = $1", [message.body.key, intent.id]);
  await receiver.completeMessage(message);
  await db.query("INSERT INTO audit_log (event) VALUES ($1)", ["settled"]);
}`,
    },
    {
      name: "complete after the transaction commits",
      code: `${dbHeader}
declare function transaction<T>(work: (tx: pg.PoolClient) => Promise<T>): Promise<T>;
async function handle(message: ServiceBusReceivedMessage) {
  await transaction(async (tx) => {
    const intent = await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
    await tx.query("INSERT INTO billing_records (key, intent) VALUES ($1, $2)", [message.body.key, intent.id]);
  });
  await receiver.completeMessage(message);
}`,
    },
  ],
  invalid: [
    {
      name: "complete between the charge and the insert",
      code: `${dbHeader}
async function handle(message: ServiceBusReceivedMessage) {
  const intent = await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
  await receiver.completeMessage(message);
  await db.query("INSERT INTO billing_records (key, intent) VALUES ($1, $2)", [message.body.key, intent.id]);
}`,
      errors: [beforeRecord("stripe.paymentIntents.create()", "db.query()", 13)],
    },
    {
      name: "an ORM save through a same-file helper",
      code: `${esmHeader}
declare const repository: { save(row: object): Promise<void> };
async function recordCharge(key: string, intentId: string) {
  await repository.save({ key, intentId, state: "charged" });
}
async function handle(message: ServiceBusReceivedMessage) {
  const intent = await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
  await receiver.completeMessage(message);
  await recordCharge(message.body.key, intent.id);
}`,
      errors: [beforeRecord("stripe.paymentIntents.create()", "recordCharge()", 14)],
    },
    {
      name: "SQL in a const and a tagged template",
      code: `${esmHeader}
declare const sql: (strings: TemplateStringsArray, ...values: unknown[]) => Promise<void>;
const RECORD = "UPDATE billing_records SET state = 'charged' WHERE key = $1";
async function handle(message: ServiceBusReceivedMessage, client: { query(text: string, values: unknown[]): Promise<void> }) {
  await stripe.charges.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
  await receiver.completeMessage(message);
  await client.query(RECORD, [message.body.key]);
  await sql\`insert into audit (key) values (\${message.body.key})\`;
}`,
      errors: [beforeRecord("stripe.charges.create()", "client.query()", 12)],
    },
    {
      name: "complete inside the transaction callback that records the charge",
      code: `${dbHeader}
async function handle(message: ServiceBusReceivedMessage, prisma: { $transaction<T>(work: (tx: any) => Promise<T>): Promise<T> }) {
  await prisma.$transaction(async (tx) => {
    const intent = await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
    await tx.billingRecord.create({ data: { key: message.body.key, intent: intent.id } });
    await receiver.completeMessage(message);
  });
}`,
      errors: [insideTransaction("stripe.paymentIntents.create()")],
    },
    {
      name: "the charge before the transaction, the complete inside it before the write",
      code: `${dbHeader}
async function handle(message: ServiceBusReceivedMessage, knex: { transaction(work: (trx: any) => Promise<void>): Promise<void> }) {
  const intent = await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
  await knex.transaction(async (trx) => {
    await receiver.completeMessage(message);
    await trx("billing_records").insert({ key: message.body.key, intent: intent.id });
  });
}`,
      errors: [beforeRecord("stripe.paymentIntents.create()", "trx(\"billing_records\").insert()", 14)],
    },
    {
      name: "a class-based consumer",
      code: `
import Stripe from "stripe";
import type { ServiceBusReceivedMessage, ServiceBusReceiver } from "@azure/service-bus";
import type { Pool } from "pg";
export class Consumer {
  private readonly stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
  constructor(private readonly receiver: ServiceBusReceiver, private readonly pool: Pool) {}
  async handle(message: ServiceBusReceivedMessage) {
    const intent = await this.stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
    await this.receiver.completeMessage(message);
    await this.pool.query(\`INSERT INTO billing_records (key, intent) VALUES ($1, $2)\`, [message.body.key, intent.id]);
  }
}`,
      errors: [beforeRecord("this.stripe.paymentIntents.create()", "this.pool.query()", 11)],
    },
    {
      name: "CommonJS (.cjs)",
      filename: "consumer.cjs",
      code: `${cjsHeader}
const { Pool } = require("pg");
const pool = new Pool();
async function handle(message) {
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
  await receiver.completeMessage(message);
  await pool.query("INSERT INTO billing_records (key) VALUES ($1)", [message.body.key]);
}
module.exports = { handle };`,
      languageOptions: { parserOptions: { sourceType: "script" } },
      errors: [beforeRecord("stripe.paymentIntents.create()", "pool.query()", 12)],
    },
  ],
});
