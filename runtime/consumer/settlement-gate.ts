// One outcome per AMQP flush. rhea (the AMQP library under @azure/service-bus; 3.0.5 and its main branch) writes the
// dispositions settled before its next flush as ranges of consecutive deliveries, each range sent with its FIRST
// delivery's outcome, and its check that two outcomes agree skips a range's second delivery. So two messages settled
// in the same tick, one completed and one dead-lettered (or abandoned), both get the first one's outcome: Service Bus
// applies the range as sent, a dead letter is silently completed (an event lost) or a billed message dead-lettered.
// Completions may share a flush (a range of accepts is right, and batching them is rhea's point); every other outcome
// gets a flush to itself. rhea flushes on process.nextTick after a settlement call, and the SDK calls rhea
// synchronously inside completeMessage/deadLetterMessage/abandonMessage/deferMessage, so a flush is over by the next
// setImmediate. One gate per process: links can share a session, and sessions are where rhea merges.
// test/runtime/consumer/settlement-gate.e2e.test.ts shows the merge through the real SDK, and the gate preventing it.
import type { ServiceBusReceivedMessage, ServiceBusReceiver } from "@azure/service-bus";

/** The settlement calls a consumer makes; what the gate wraps. */
export type SettlingReceiver = Pick<ServiceBusReceiver, "completeMessage" | "deadLetterMessage" | "abandonMessage" | "deferMessage">;

type Outcome = "accept" | "other";

interface Waiting {
  outcome: Outcome;
  admit(): void;
}

/** What the current flush holds: nothing, completions only, or one other outcome. */
let flush: Outcome | undefined;
let flushEnds = false;
const waiting: Waiting[] = [];

function fits(outcome: Outcome): boolean {
  return flush === undefined || (flush === "accept" && outcome === "accept");
}

function open(outcome: Outcome): void {
  flush = outcome;
  if (flushEnds) return;
  flushEnds = true;
  setImmediate(endFlush);
}

function endFlush(): void {
  flush = undefined;
  flushEnds = false;
  // In arrival order: the head always gets in; completions behind it join a completion flush.
  while (waiting.length > 0 && fits(waiting[0]!.outcome)) {
    const next = waiting.shift()!;
    open(next.outcome);
    next.admit();
  }
}

/** Runs `settle` in a flush that can hold its outcome: at once when it fits, else after the flushes ahead of it. */
function inFlush<T>(outcome: Outcome, settle: () => Promise<T>): Promise<T> {
  if (waiting.length === 0 && fits(outcome)) {
    open(outcome);
    return settle();
  }
  return new Promise<void>((admit) => waiting.push({ outcome, admit })).then(settle);
}

/**
 * The receiver with its settlements gated: completions go out together, a dead letter, an abandon or a deferral
 * alone. `startBillingConsumer` gates its own receiver; a consumer of your own should settle through this.
 */
export function gateSettlements<R extends SettlingReceiver>(receiver: R): R {
  const gated: SettlingReceiver = {
    completeMessage: (message: ServiceBusReceivedMessage) => inFlush("accept", () => receiver.completeMessage(message)),
    deadLetterMessage: (message, options) => inFlush("other", () => receiver.deadLetterMessage(message, options)),
    abandonMessage: (message, properties) => inFlush("other", () => receiver.abandonMessage(message, properties)),
    deferMessage: (message, properties) => inFlush("other", () => receiver.deferMessage(message, properties)),
  };
  return new Proxy(receiver, {
    get(target, property) {
      if (Object.hasOwn(gated, property)) return gated[property as keyof SettlingReceiver];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
