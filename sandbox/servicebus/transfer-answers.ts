// How the broker answers a client's transfers: a send or a request is accepted or rejected, a received message's
// settlement is answered with `accepted` or with the error Service Bus gives (lock lost, server busy). Each answer
// goes through the disposition flush, so no two clients' outcomes are merged into one (disposition-flush.ts).
import rhea, { type Delivery } from "rhea";
import { DispositionFlush } from "./disposition-flush.js";

export type AmqpError = { condition: string; description: string };

export const lockLostError: AmqpError = {
  condition: "com.microsoft:message-lock-lost",
  description:
    "The lock supplied is invalid. Either the lock expired, or the message has already been removed from the queue.",
};
/** Dead-lettering a dead letter: `amqp:not-allowed`, which the SDK raises as `ServiceBusError` code `GeneralError`
 * ("InvalidOperationError: ..."), as against Service Bus. */
export const deadLetterNotAllowed: AmqpError = {
  condition: "amqp:not-allowed",
  description: "A message received from a dead-letter queue cannot be dead-lettered again.",
};
export const serverBusyError: AmqpError = {
  condition: "com.microsoft:server-busy",
  description: "The server is busy. Please retry the operation later (injected fault).",
};

/** rhea delivery internals: the outcome the client asked for, and settling our side. */
export interface DeliveryInternals {
  remote_settled: boolean;
  remote_state?: { error?: { condition?: string; description?: string; info?: Record<string, unknown> }; undeliverable_here?: boolean; message_annotations?: Record<string, unknown> };
  update(settled: boolean, state?: unknown): void;
}
const outcomes = rhea.message as unknown as {
  accepted(): { described(): unknown };
  rejected(fields: { error: AmqpError }): { described(): unknown };
};

export class TransferAnswers {
  readonly #dispositions = new DispositionFlush();

  /** Settles our side of a received message's settlement; the SDK waits for this. Success carries `accepted` and no error. */
  settle(delivery: DeliveryInternals, error?: AmqpError): void {
    this.#dispositions.dispose(error ? "other" : "accept", () => {
      delivery.update(true, error ? outcomes.rejected({ error }).described() : outcomes.accepted().described());
      // The client settles silently after us (rcv-settle-mode second); mark it so rhea frees the slot.
      delivery.remote_settled = true;
    });
  }

  /**
   * A transfer taken (a send, a request): each outcome as the broker gives it, never merged with another. `then` runs
   * once the acceptance has been written (rhea writes on the next tick, so a later macrotask comes after it).
   */
  accept(delivery: Delivery, then?: () => void): void {
    this.#dispositions.dispose("accept", () => {
      delivery.accept();
      if (then) setImmediate(then);
    });
  }

  reject(delivery: Delivery, error: AmqpError): void {
    this.#dispositions.dispose("other", () => delivery.reject(error));
  }
}
