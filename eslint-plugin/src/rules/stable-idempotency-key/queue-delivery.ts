import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "../../utils/analysis.js";
import { bindingOf } from "../../utils/binding.js";
import { calleeName } from "../../utils/static-name.js";
import { unwrap } from "../../utils/unwrap.js";
import { isFunction } from "../../utils/walk.js";

/**
 * Delivery identities other brokers stamp on a message or a job (Service Bus's own are in unstable-catalog): each
 * differs when the same billing event comes back (the broker redelivers it, a producer re-sends it, a job is added
 * again), so a key built from one charges again exactly as one built from a Service Bus `messageId` does. Names
 * that only these brokers use are reported on any object; generic ones (`offset`, `partition`, `id`) only where the
 * file shows the broker.
 */
interface DeliveryIdentity {
  why: string;
  /** Whether `object` (or, for a destructured parameter, the file: `object` is null) shows this broker. */
  applies(analysis: Analysis, object: TSESTree.Node | null): boolean;
}

const anywhere = () => true;

const KAFKA = /["'](kafkajs|@confluentinc\/kafka-javascript|node-rdkafka)["']/;
const PUBSUB = /["']@google-cloud\/pubsub["']/;
const JOB_QUEUES = /["'](bullmq|bull|bee-queue|@nestjs\/bullmq|@nestjs\/bull)["']/;
/** A job added with an id of its own (`add(name, data, { jobId })`, Bee's `createJob(d).setId(id)`) keeps it when added again. */
const STABLE_JOB_ID = /\bjobId\b|\.setId\(/;

const IDENTITIES: ReadonlyMap<string, DeliveryIdentity> = new Map<string, DeliveryIdentity>([
  ["receiptHandle", { why: "it is an SQS receipt handle, new on every receive of the same message", applies: anywhere }],
  ["ReceiptHandle", { why: "it is an SQS receipt handle, new on every receive of the same message", applies: anywhere }],
  ["MessageId", { why: "SQS assigns it on send, so a producer re-sending the event gets a new one", applies: anywhere }],
  ["deliveryTag", { why: "it is an AMQP delivery tag, numbering deliveries on a channel: a redelivery gets a new one", applies: anywhere }],
  ["ackId", { why: "it is a Pub/Sub ack id, new on every delivery of the same message", applies: anywhere }],
  ["offset", { why: "it is where Kafka stored this copy of the event: a re-sent event lands at a new offset", applies: (analysis: Analysis) => fileShows(analysis, KAFKA) }],
  ["partition", { why: "it is where Kafka stored this copy of the event: a re-sent event can land on another partition", applies: (analysis: Analysis) => fileShows(analysis, KAFKA) }],
  ["id", { why: "it is the id the broker gave this delivery (a BullMQ/Bull/Bee job added without a jobId, a Pub/Sub message): the same event added or published again gets a new one", applies: deliveredId }],
]);

/** The source as the message names it (`job.id`, `deliveryTag`) and why it breaks a key, or `null`. */
export function deliveryIdentity(analysis: Analysis, step: string, object: TSESTree.Node | null): { source: string; why: string } | null {
  const identity = IDENTITIES.get(step);
  if (!identity?.applies(analysis, object)) return null;
  const owner = object ? unwrap(object) : null;
  return { source: owner?.type === AST_NODE_TYPES.Identifier ? `${owner.name}.${step}` : step, why: identity.why };
}

const shown = new WeakMap<object, Map<RegExp, boolean>>();

function fileShows(analysis: Analysis, pattern: RegExp): boolean {
  let known = shown.get(analysis.sourceCode);
  if (!known) shown.set(analysis.sourceCode, (known = new Map()));
  let result = known.get(pattern);
  if (result === undefined) known.set(pattern, (result = pattern.test(analysis.sourceCode.text)));
  return result;
}

/**
 * `job.id` where `job` is the first parameter of a job processor (`new Worker(name, (job) => ...)`, `queue.process((job)
 * => ...)`) in a file that adds no job with an id of its own, or `message.id` where `message` is the first parameter
 * of a Pub/Sub `subscription.on("message", (message) => ...)` handler.
 */
function deliveredId(analysis: Analysis, object: TSESTree.Node | null): boolean {
  if (!object) return false;
  const target = unwrap(object);
  if (target.type !== AST_NODE_TYPES.Identifier) return false;
  const definition = bindingOf(analysis.sourceCode, target)?.definition;
  if (definition?.type !== "Parameter" || !isFunction(definition.node)) return false;
  const fn = definition.node;
  if (fn.params[0]?.type !== AST_NODE_TYPES.Identifier || fn.params[0].name !== target.name) return false;
  const call = fn.parent;
  if ((call?.type !== AST_NODE_TYPES.CallExpression && call?.type !== AST_NODE_TYPES.NewExpression) || !call.arguments.includes(fn as TSESTree.CallExpressionArgument)) return false;
  if (fileShows(analysis, JOB_QUEUES) && !fileShows(analysis, STABLE_JOB_ID)) {
    if (call.type === AST_NODE_TYPES.NewExpression && call.callee.type === AST_NODE_TYPES.Identifier && call.callee.name === "Worker") return true;
    if (call.type === AST_NODE_TYPES.CallExpression && calleeName(call) === "process") return true;
  }
  if (fileShows(analysis, PUBSUB) && call.type === AST_NODE_TYPES.CallExpression && calleeName(call) === "on") {
    const event = call.arguments[0];
    return event?.type === AST_NODE_TYPES.Literal && event.value === "message";
  }
  return false;
}

