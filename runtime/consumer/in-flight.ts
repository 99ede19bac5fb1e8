// The messages a consumer is working on, and which of them are parked in a step hook: close() waits for the others
// to settle, never for a flow frozen in a hook (a simulated crash may never return from one).
import type { ServiceBusReceivedMessage } from "@azure/service-bus";

export class InFlight {
  /** true while parked in a step hook. */
  readonly #inHook = new Map<ServiceBusReceivedMessage, boolean>();
  /** When each message came in (insertion order: the first is the oldest), for the receive loop's liveness. */
  readonly #since = new Map<ServiceBusReceivedMessage, number>();

  add(message: ServiceBusReceivedMessage, at = Date.now()): void {
    this.#inHook.set(message, false);
    this.#since.set(message, at);
  }

  delete(message: ServiceBusReceivedMessage): void {
    this.#inHook.delete(message);
    this.#since.delete(message);
  }

  /** When the oldest message still in flight came in; undefined when none is. */
  oldestSince(): number | undefined {
    for (const since of this.#since.values()) return since;
    return undefined;
  }

  /** The billing handler's `onHookWait`. */
  readonly hookWait = (message: ServiceBusReceivedMessage, waiting: boolean): void => {
    if (this.#inHook.has(message)) this.#inHook.set(message, waiting);
  };

  /** Some message is still working (not parked in a hook). */
  get working(): boolean {
    for (const inHook of this.#inHook.values()) if (!inHook) return true;
    return false;
  }

  /** Polls until no message is working, or the deadline passes. */
  async settled(deadline: number): Promise<void> {
    while (Date.now() < deadline && this.working) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
