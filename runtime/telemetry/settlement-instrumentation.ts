// How a delivery leaves the queue, as telemetry sees it: the receiver's settlement becomes the process span's
// disposition (dead letters counted by reason), and each retry re-enqueued as a scheduled message is a producer span
// and a count with the outcome that asked for it.
import { SpanKind, type Tracer } from "@opentelemetry/api";
import type { MessageSettler, RetryScheduler } from "../handler/billing-handler.js";
import { leftOnQueue } from "../handler/configuration-fault.js";
import type { DeliveryScope } from "./delivery-scope.js";
import type { Instruments } from "./instruments.js";
import { attributeNames as attr, deadLetterReasons, type BillingOutcomeName } from "./metric-names.js";
import { messaging, serviceBusSystem } from "./semantic-conventions.js";
import { childSpan, errorTypeOf } from "./traced-work.js";

export class SettlementInstrumentation {
  readonly #tracer: Tracer;
  readonly #instruments: Instruments;

  constructor(tracer: Tracer, instruments: Instruments) {
    this.#tracer = tracer;
    this.#instruments = instruments;
  }

  /** The receiver's settlements, as the process span's disposition; dead letters counted by reason. */
  settler(receiver: MessageSettler, queue: string, scope: DeliveryScope): MessageSettler {
    return {
      completeMessage: (message) => settlement("complete", scope, () => receiver.completeMessage(message)),
      deadLetterMessage: (message, options) => {
        const reason = boundedReason(options?.deadLetterReason);
        scope.deadLetterReason = reason;
        return settlement("dead_letter", scope, async () => {
          await receiver.deadLetterMessage(message, options);
          // A configuration fault gate puts the message back and pauses: no dead letter to count.
          if (!leftOnQueue(message)) this.#instruments.deadLetters.add(1, { [attr.deadLetterReason]: reason, [messaging.destinationName]: queue });
        });
      },
    };
  }

  /** The retry scheduler: each scheduled retry counted, with the outcome that asked for it (busy or unknown). */
  scheduler(sender: RetryScheduler, queue: string, scope: DeliveryScope): RetryScheduler {
    const scheduleMessages: RetryScheduler["scheduleMessages"] = async (messages, scheduledEnqueueTimeUtc, options) => {
      scope.retryScheduled = true;
      const outcome: BillingOutcomeName = scope.claim === "busy" ? "busy" : "unknown";
      const sequenceNumbers = await childSpan(
        this.#tracer,
        `schedule ${queue}`,
        SpanKind.PRODUCER,
        { [messaging.system]: serviceBusSystem, [messaging.operationName]: "schedule", [messaging.operationType]: "send", [messaging.destinationName]: queue },
        scope,
        () => sender.scheduleMessages(messages, scheduledEnqueueTimeUtc, options),
      );
      this.#instruments.retriesScheduled.add(Array.isArray(messages) ? messages.length : 1, {
        [attr.outcome]: outcome,
        [messaging.destinationName]: queue,
      });
      return sequenceNumbers;
    };
    return { scheduleMessages };
  }
}

/**
 * The disposition is an attribute of the delivery's process span (as the conventions put it on the operation that
 * settles) rather than a span of its own: a fifth span per message was a fifth of what tracing cost, and the Service
 * Bus SDK spans each settlement itself when its tracing is on.
 */
async function settlement(disposition: "complete" | "dead_letter", scope: DeliveryScope, work: () => Promise<void>): Promise<void> {
  scope.settled = true;
  scope.span.setAttribute(messaging.dispositionStatus, disposition);
  try {
    await work();
  } catch (error) {
    scope.settlementFailed = errorTypeOf(error);
    throw error;
  }
}

function boundedReason(reason: string | undefined): string {
  return reason !== undefined && (deadLetterReasons as readonly string[]).includes(reason) ? reason : "other";
}
