// The OpenTelemetry semantic conventions the spans and the messaging metrics follow, pinned. The messaging
// conventions are still "Development": later versions rename `messaging.system` to `messaging.system.name` and the
// `messaging.servicebus.*` attributes to `azure.servicebus.*`. We follow one version until we move on deliberately
// (consumers that opt in to newer names through OTEL_SEMCONV_STABILITY_OPT_IN get them from their own SDK spans).

/** The semantic conventions version these names come from (https://opentelemetry.io/docs/specs/semconv/). */
export const semanticConventionsVersion = "1.27.0";
export const semanticConventionsSchemaUrl = `https://opentelemetry.io/schemas/${semanticConventionsVersion}`;

export const messaging = {
  system: "messaging.system",
  operationName: "messaging.operation.name",
  operationType: "messaging.operation.type",
  destinationName: "messaging.destination.name",
  messageId: "messaging.message.id",
  deliveryCount: "messaging.servicebus.message.delivery_count",
  enqueuedTime: "messaging.servicebus.message.enqueued_time",
  dispositionStatus: "messaging.servicebus.disposition_status",
  /** `messaging.process.duration` (s) and `messaging.client.consumed.messages` ({message}). */
  processDuration: "messaging.process.duration",
  consumedMessages: "messaging.client.consumed.messages",
} as const;

export const serviceBusSystem = "servicebus";
export const errorType = "error.type";

/** The application property the Service Bus SDK writes a producer's W3C traceparent into. */
export const diagnosticIdProperty = "Diagnostic-Id";
