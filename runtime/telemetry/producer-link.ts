// The producer's span context, as the Service Bus SDK carries it: a W3C traceparent in the `Diagnostic-Id`
// application property. A process span links to it (a message may be processed long after it was sent, and by a
// retry: links, not parenthood, as the messaging conventions say). A scheduled retry copies the application
// properties (retry-chain.ts), so every attempt links to the same producer.
import { isSpanContextValid, type Link, type SpanContext, TraceFlags } from "@opentelemetry/api";
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import { diagnosticIdProperty } from "./semantic-conventions.js";

const traceparent = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/** A traceparent's span context; undefined when absent or malformed (version ff, all-zero ids). */
export function parseTraceparent(value: unknown): SpanContext | undefined {
  if (typeof value !== "string") return undefined;
  const match = traceparent.exec(value.trim().toLowerCase());
  if (!match || match[1] === "ff") return undefined;
  const [, , traceId = "", spanId = "", flags = "00"] = match;
  const context: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(context) ? context : undefined;
}

/** The link to the message's producer, when it carries one. */
export function producerLinks(message: Pick<ServiceBusReceivedMessage, "applicationProperties">): Link[] {
  const context = parseTraceparent(message.applicationProperties?.[diagnosticIdProperty]);
  return context ? [{ context }] : [];
}
