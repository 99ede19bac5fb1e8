import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * The scan's rules are worded for a queue consumer ("a redelivered or resubmitted message"); a finding in an HTTP
 * handler or a scheduled job is reworded for the repeat that applies there (a retry of the request, a rerun of the
 * job), as the ESLint rules word theirs (see utils/message-context). A file that shows a message broker, or none of
 * these, keeps the queue wording.
 */
export type ScanContext = "message" | "webhook" | "job" | "request";

const SIGNALS: Record<string, ReadonlyArray<readonly [ScanContext, RegExp]>> = {
  python: [
    ["message", /^\s*(from|import)\s+(azure\.servicebus|boto3|aiobotocore|pika|aio_pika|kombu|kafka|confluent_kafka|aiokafka|google\.cloud(\.pubsub| import pubsub))\b/m],
    ["webhook", /\bWebhook\s*\.\s*construct_event\s*\(|\.webhooks\s*\.\s*construct_event\s*\(|["'](HTTP_)?STRIPE[_-]SIGNATURE["']/i],
    ["job", /^\s*(from|import)\s+(celery|rq|dramatiq|huey|apscheduler|schedule|crontab|arq)\b|@(shared_task|periodic_task|\w+\.task|\w+\.actor)\b/m],
    ["request", /^\s*(from|import)\s+(flask|fastapi|django|starlette|aiohttp\.web|falcon|tornado|sanic|rest_framework)\b|@\w+\.(route|get|post|put|patch|delete)\(/m],
  ],
  java: [
    ["message", /\bimport\s+(com\.azure\.messaging\.servicebus|com\.azure\.spring\.(messaging|cloud)|org\.springframework\.amqp|com\.rabbitmq|org\.apache\.kafka|org\.springframework\.kafka|software\.amazon\.awssdk\.services\.sqs|com\.amazonaws\.services\.sqs|io\.awspring|com\.google\.cloud\.pubsub|(javax|jakarta)\.jms)\b|@(ServiceBusListener|RabbitListener|KafkaListener|SqsListener|JmsListener)\b/],
    ["webhook", /\bWebhook\s*\.\s*constructEvent\s*\(|"Stripe-Signature"/],
    ["job", /@Scheduled\b|\bimport\s+org\.quartz\b/],
    ["request", /@(RestController|Controller|RequestMapping|PostMapping|GetMapping|PutMapping)\b|\bimport\s+(javax|jakarta)\.servlet\b/],
  ],
};

const REWORDING: ReadonlyArray<readonly [string, Record<Exclude<ScanContext, "message">, string>]> = [
  ["a redelivered or resubmitted message", { request: "a retry of the same request", job: "a rerun of the same job", webhook: "a redelivered webhook event" }],
  ["(a redelivery, a resubmitted dead letter)", { request: "(a retry of the same request)", job: "(a rerun of the same job)", webhook: "(Stripe sends the event again until it gets a 2xx)" }],
];

export function scanContext(text: string, language: string): ScanContext | null {
  for (const [context, pattern] of SIGNALS[language.toLowerCase()] ?? []) if (pattern.test(text)) return context;
  return null;
}

/** The message worded for the file's context; files are read once per scan (`texts`). */
export function reworded(message: string, file: string, language: string, cwd: string, texts: Map<string, string>): string {
  if (!REWORDING.some(([phrase]) => message.includes(phrase))) return message;
  const absolute = path.resolve(cwd, file);
  let text = texts.get(absolute);
  if (text === undefined) {
    try {
      text = readFileSync(absolute, "utf8");
    } catch {
      text = "";
    }
    texts.set(absolute, text);
  }
  const context = scanContext(text, language);
  if (context === null || context === "message") return message;
  return REWORDING.reduce((result, [phrase, words]) => result.replaceAll(phrase, words[context]), message);
}
