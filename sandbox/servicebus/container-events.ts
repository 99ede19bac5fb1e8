// rhea's container events, told to the broker in Service Bus terms: a link attached or closed, a transfer arrived,
// credit to pump, and each AMQP outcome a client sent for a received message read as the settlement it asks for
// (modified with undeliverable-here is a defer, rejected a dead letter with the reason in the error's info).
import type { Connection, Container, EventContext, Receiver, Sender } from "rhea";
import type { Settlement } from "./queue.js";
import type { DeliveryInternals } from "./transfer-answers.js";

export type RemoteState = DeliveryInternals["remote_state"];

export interface BrokerEvents {
  /** The client attached a receiver: we are the sender. */
  receiverAttached(sender: Sender): void;
  /** The client attached a sender: we are the receiver. */
  senderAttached(receiver: Receiver): void;
  transfer(context: EventContext): void;
  /** The client settled a received message; `settlement` reads what it asked for from the outcome's state. */
  outcome(context: EventContext, settlement: (state: RemoteState) => Settlement): void;
  /** A receive link has credit or room to send: deliver what waits for it. */
  pump(sender: Sender): void;
  receiverClosed(sender: Sender): void;
  senderClosed(receiver: Receiver): void;
  connectionGone(connection: Connection): void;
  log(line: string): void;
}

export function wireContainer(container: Container, broker: BrokerEvents): void {
  const mechanisms = container.sasl_server_mechanisms as unknown as Record<string, unknown> & {
    enable_anonymous(): void;
  };
  mechanisms.enable_anonymous();
  // The SDK may offer Service Bus's CBS mechanism; authentication happens over $cbs anyway.
  mechanisms.MSSBCBS = mechanisms.ANONYMOUS;

  container.on("sender_open", (context: EventContext) => broker.receiverAttached(context.sender as Sender));
  container.on("receiver_open", (context: EventContext) => broker.senderAttached(context.receiver as Receiver));
  container.on("message", (context: EventContext) => broker.transfer(context));
  const pumpLink = (context: EventContext): void => broker.pump(context.sender as Sender);
  container.on("sender_flow", pumpLink);
  container.on("sendable", pumpLink);
  container.on("accepted", (context: EventContext) => broker.outcome(context, () => ({ kind: "complete" })));
  container.on("released", (context: EventContext) => broker.outcome(context, () => ({ kind: "release" })));
  container.on("modified", (context: EventContext) => broker.outcome(context, modifiedSettlement));
  container.on("rejected", (context: EventContext) => broker.outcome(context, rejectedSettlement));
  container.on("sender_close", (context: EventContext) => broker.receiverClosed(context.sender as Sender));
  container.on("receiver_close", (context: EventContext) => broker.senderClosed(context.receiver as Receiver));
  const forgetConnection = (context: EventContext): void => broker.connectionGone(context.connection);
  container.on("connection_close", forgetConnection);
  container.on("disconnected", forgetConnection);
  for (const event of ["error", "connection_error", "session_error", "sender_error", "receiver_error", "protocol_error"]) {
    container.on(event, (context: unknown) => {
      const error = (context as { error?: unknown } | undefined)?.error ?? context;
      broker.log(`servicebus emulator: ${event}: ${error instanceof Error ? error.message : JSON.stringify(error)}`);
    });
  }
}

/** `modified`: undeliverable here is a defer, else an abandon; either may modify the message's properties. */
function modifiedSettlement(state: RemoteState): Settlement {
  const properties = state?.message_annotations;
  return state?.undeliverable_here
    ? { kind: "defer", ...(properties ? { properties } : {}) }
    : { kind: "abandon", ...(properties ? { properties } : {}) };
}

/** `rejected`: a dead letter, its reason and description from the error's info (else the error's own fields). */
function rejectedSettlement(state: RemoteState): Settlement {
  const { DeadLetterReason, DeadLetterErrorDescription, ...properties } = state?.error?.info ?? {};
  return {
    kind: "deadLetter",
    reason: typeof DeadLetterReason === "string" ? DeadLetterReason : state?.error?.condition,
    description: typeof DeadLetterErrorDescription === "string" ? DeadLetterErrorDescription : state?.error?.description,
    properties,
  };
}
