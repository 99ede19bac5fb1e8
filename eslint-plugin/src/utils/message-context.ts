import path from "node:path";
import type { Analysis } from "./analysis.js";
import { importersOf } from "./importer-context.js";

/**
 * Where the code runs, which decides what repeats it: a queue delivery (Service Bus or another broker: a redelivered
 * message), a Stripe webhook (Stripe sends an event again until it gets a 2xx), a scheduled or queued job (cron, a
 * timer trigger, a job queue: a rerun of the job), or else an HTTP request (a retry of the request). Messages name
 * the repeat that applies; the scan words its findings the same way (scan/delivery-context.ts).
 */
export type DeliveryContext = "message" | "webhook" | "job" | "request";

/** Service Bus (the SDK's package, its receiving and settlement methods) or another message broker's client. */
const MESSAGES =
  /@azure\/service-bus|\b(completeMessage|abandonMessage|deadLetterMessage|deferMessage|receiveMessages|processMessage|renewMessageLock)\b|["'](@aws-sdk\/client-sqs|sqs-consumer|amqplib(\/callback_api)?|amqp-connection-manager|kafkajs|@confluentinc\/kafka-javascript|node-rdkafka|@google-cloud\/pubsub|@nestjs\/microservices)["']|\bSQSEvent\b|\bSQSHandler\b/;

/** A scheduler or a job queue: cron packages, NestJS `@Cron`/`@Interval`, Azure Functions timers, BullMQ/Bull/Bee/Agenda. */
const JOBS = /["'](node-cron|cron|node-schedule|agenda|bullmq|bull|bee-queue|@nestjs\/schedule|@nestjs\/bullmq|@nestjs\/bull)["']|@(Cron|Interval|Timeout)\(|\bapp\.timer\(|\bTimerTrigger\b/;

/** A Stripe webhook endpoint: it verifies the event's signature (stripe-node's `webhooks.constructEvent`). */
const WEBHOOKS = /\bwebhooks\s*\.\s*constructEvent(Async)?\s*\(|["']stripe-signature["']/;

const REPEAT: Record<DeliveryContext, string> = {
  message: "a redelivered message",
  webhook: "a redelivered webhook event",
  job: "a rerun of the same job",
  request: "a retry of the same request",
};

const cache = new WeakMap<object, DeliveryContext>();

export function deliveryContext(analysis: Analysis): DeliveryContext {
  const cached = cache.get(analysis.sourceCode);
  if (cached !== undefined) return cached;
  const { text } = analysis.sourceCode;
  const own = contextOf(text);
  // A file with no context of its own takes the one of a file that imports it and runs it (a worker made elsewhere).
  const importers = own === null && path.isAbsolute(analysis.filename) ? importersOf(analysis.filename, ANY_CONTEXT) : [];
  const result: DeliveryContext = own ?? importers.map(contextOf).find((context) => context !== null) ?? "request";
  cache.set(analysis.sourceCode, result);
  return result;
}

const ANY_CONTEXT = new RegExp([MESSAGES, WEBHOOKS, JOBS].map((pattern) => pattern.source).join("|"));

function contextOf(text: string): DeliveryContext | null {
  return MESSAGES.test(text) ? "message" : WEBHOOKS.test(text) ? "webhook" : JOBS.test(text) ? "job" : null;
}

/** The repeat that charges again, worded for the file. */
export function repeatWording(analysis: Analysis): string {
  return REPEAT[deliveryContext(analysis)];
}
