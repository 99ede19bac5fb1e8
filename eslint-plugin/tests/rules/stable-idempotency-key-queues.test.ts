// Delivery identities of the other brokers billing code runs on (SQS, RabbitMQ/AMQP, Kafka, Pub/Sub, BullMQ/Bull/
// Bee), as unstable key sources, each in the shape its client hands it to a consumer; and what must stay silent: the
// same names where the file shows no such broker, and a job id the producer sets itself.
import { consequenceOf } from "../../src/utils/consequence.js";
import ruleWithSuggestions from "../../src/rules/stable-idempotency-key.js";
import { detectionOnly } from "../detection-only.js";
import { ruleTester } from "../rule-tester.js";

// Detection only: the suggestions are asserted in tests/rules/suggestions.test.ts.
const rule = detectionOnly(ruleWithSuggestions);

const stripeHeader = `
import Stripe from "stripe";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
`;

/** What the message says of the call: its name and what a repeat of it does (`paymentIntents.create` unless given). */
const about = (call = "paymentIntents.create", moneyMoving = true) => {
  const [resource, method] = [call.slice(0, call.lastIndexOf(".")), call.slice(call.lastIndexOf(".") + 1)];
  return call === "" ? { call: "this request", consequence: "runs it again" } : { call: `${call}()`, consequence: consequenceOf(resource, method, moneyMoving) };
};
const unstable = (source: string, why: string, call?: string, moneyMoving?: boolean) => ({ messageId: "unstableKey" as const, data: { source, why, ...about(call, moneyMoving) } });

const RECEIPT = "it is an SQS receipt handle, new on every receive of the same message";
const SQS_ID = "SQS assigns it on send, so a producer re-sending the event gets a new one";
const TAG = "it is an AMQP delivery tag, numbering deliveries on a channel: a redelivery gets a new one";
const ACK = "it is a Pub/Sub ack id, new on every delivery of the same message";
const OFFSET = "it is where Kafka stored this copy of the event: a re-sent event lands at a new offset";
const PARTITION = "it is where Kafka stored this copy of the event: a re-sent event can land on another partition";
const DELIVERED_ID =
  "it is the id the broker gave this delivery (a BullMQ/Bull/Bee job added without a jobId, a Pub/Sub message): the same event added or published again gets a new one";

ruleTester.run("stable-idempotency-key (other brokers)", rule, {
  valid: [
    {
      name: "a Kafka offset field of the event's own payload, and a pagination offset in a file with no Kafka client",
      code: `${stripeHeader}
export async function charge(page: { offset: number; customer: string }) {
  await stripe.paymentIntents.create({ amount: 100, currency: "usd" }, { idempotencyKey: \`c:\${page.customer}:\${page.offset}\` });
}`,
    },
    {
      name: "a BullMQ job added with a jobId of the producer's: job.id is that stable id",
      code: `${stripeHeader}
import { Queue, Worker } from "bullmq";
export const queue = new Queue("billing");
export const add = (invoice: string) => queue.add("charge", { invoice }, { jobId: \`charge:\${invoice}\` });
new Worker("billing", async (job) => {
  await stripe.paymentIntents.create({ amount: 100, currency: "usd" }, { idempotencyKey: job.id });
});`,
    },
    {
      name: "customer.id is a business field, whatever the file imports",
      code: `${stripeHeader}
import { Worker } from "bullmq";
new Worker("billing", async (job) => {
  const customer = job.data.customer;
  await stripe.paymentIntents.create({ amount: 100, currency: "usd", customer: customer.id }, { idempotencyKey: \`charge:\${customer.id}:\${job.data.period}\` });
});`,
    },
  ],
  invalid: [
    {
      name: "SQS (AWS SDK v3): the receipt handle and the MessageId of a received message",
      code: `${stripeHeader}
import { ReceiveMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
const sqs = new SQSClient({});
export async function poll(url: string) {
  const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url }));
  for (const message of Messages) {
    await stripe.paymentIntents.create({ amount: 100, currency: "usd" }, { idempotencyKey: message.ReceiptHandle });
    await stripe.refunds.create({ charge: "ch_1" }, { idempotencyKey: \`refund:\${message.MessageId}\` });
  }
}`,
      errors: [unstable("message.ReceiptHandle", RECEIPT), unstable("message.MessageId", SQS_ID, "refunds.create")],
    },
    {
      name: "SQS through a Lambda event: record.receiptHandle",
      code: `${stripeHeader}
import type { SQSEvent } from "aws-lambda";
export async function handler(event: SQSEvent) {
  for (const record of event.Records) {
    await stripe.paymentIntents.create({ amount: 100, currency: "usd" }, { idempotencyKey: record.receiptHandle });
  }
}`,
      errors: [unstable("record.receiptHandle", RECEIPT)],
    },
    {
      name: "RabbitMQ (amqplib): msg.fields.deliveryTag",
      code: `${stripeHeader}
import amqp from "amqplib";
const channel = await (await amqp.connect("amqp://127.0.0.1")).createChannel();
await channel.consume("billing", async (msg) => {
  if (!msg) return;
  await stripe.paymentIntents.create({ amount: 100, currency: "usd" }, { idempotencyKey: \`pi-\${msg.fields.deliveryTag}\` });
  channel.ack(msg);
});`,
      errors: [unstable("deliveryTag", TAG)],
    },
    {
      name: "Kafka (kafkajs): the offset and the partition of eachMessage",
      code: `${stripeHeader}
import { Kafka } from "kafkajs";
const consumer = new Kafka({ brokers: ["127.0.0.1:9092"] }).consumer({ groupId: "billing" });
await consumer.run({
  eachMessage: async ({ partition, message }) => {
    await stripe.paymentIntents.create({ amount: 100, currency: "usd" }, { idempotencyKey: message.offset });
    await stripe.refunds.create({ charge: "ch_1" }, { idempotencyKey: String(partition) });
  },
});`,
      errors: [unstable("message.offset", OFFSET), unstable("partition", PARTITION, "refunds.create")],
    },
    {
      name: "Pub/Sub: message.id and message.ackId of a subscription's message handler",
      code: `${stripeHeader}
import { PubSub } from "@google-cloud/pubsub";
const subscription = new PubSub().subscription("billing");
subscription.on("message", async (message) => {
  await stripe.paymentIntents.create({ amount: 100, currency: "usd" }, { idempotencyKey: message.id });
  await stripe.refunds.create({ charge: "ch_1" }, { idempotencyKey: message.ackId });
  message.ack();
});`,
      errors: [unstable("message.id", DELIVERED_ID), unstable("message.ackId", ACK, "refunds.create")],
    },
    {
      name: "BullMQ: job.id of a Worker's job added without a jobId",
      code: `${stripeHeader}
import { Worker } from "bullmq";
new Worker("billing", async (job) => {
  await stripe.paymentIntents.create({ amount: job.data.amount, currency: "usd" }, { idempotencyKey: \`charge-\${job.id}\` });
});`,
      errors: [unstable("job.id", DELIVERED_ID)],
    },
    {
      name: "Bee-Queue: job.id of queue.process",
      code: `${stripeHeader}
const Queue = require("bee-queue");
const queue = new Queue("billing");
queue.process(async (job) => {
  await stripe.paymentIntents.create({ amount: 100, currency: "usd" }, { idempotencyKey: job.id });
});`,
      errors: [unstable("job.id", DELIVERED_ID)],
    },
  ],
});
