import type { MessageSnapshot } from "./snapshot.js";

/** Operations a fault can target. `settle` matches complete, abandon, deadLetter and defer alike. */
export type FaultOperation = "send" | "renewLock" | "complete" | "abandon" | "deadLetter" | "defer" | "settle";
export type SettleOperation = "complete" | "abandon" | "deadLetter" | "defer";

/**
 * - `serverBusy`: the broker refuses with `com.microsoft:server-busy` (the SDK raises `ServiceBusy`); nothing changes.
 * - `delay`: the broker answers (and acts) `delayMs` later; a lock that lapsed meanwhile answers `MessageLockLost`.
 * - `never`: the broker neither acts nor answers; the SDK times out on its own.
 */
export type FaultAction = "serverBusy" | "delay" | "never";

export interface FaultRule {
  operation: FaultOperation;
  action: FaultAction;
  /** Required for `delay`. */
  delayMs?: number;
  /** Only this queue; default any. */
  queue?: string;
  /** How many matching operations it hits before it retires; default every one. */
  times?: number;
  /** Only operations on messages this predicate accepts (for `send`: any message of the transfer). */
  when?: (message: MessageSnapshot) => boolean;
}

export interface InjectedFault {
  readonly rule: Readonly<FaultRule>;
  /** Operations it has hit so far. */
  readonly hits: number;
  /** Retires the fault. */
  remove(): void;
}

/** What the broker does about an operation a fault hit. */
export type FaultVerdict = { action: "serverBusy" } | { action: "delay"; delayMs: number } | { action: "never" };

/**
 * Fault injection. Faults are matched in the order they were injected; the first that matches decides.
 * Connection and lock faults act at once.
 */
export interface ServiceBusFaults {
  inject(rule: FaultRule): InjectedFault;
  /** Ends the locks on matching messages of a queue now, as if they had lapsed; returns how many. */
  expireLock(queue: string, when?: (message: MessageSnapshot) => boolean): number;
  /** Drops every client TCP connection (the SDK reconnects); locks stay until they lapse. */
  dropConnections(): void;
  /** Detaches every send and receive link of a queue (default all queues) with `amqp:link:detach-forced`. */
  detachLinks(queue?: string): number;
  /**
   * Detaches a queue's receive links and refuses new ones (`amqp:link:detach-forced`, which the SDK retries for ever)
   * while its management link (peek, renew, schedule) still answers: a subscription that cannot receive. Returns the
   * restore; `clear()` restores too.
   */
  refuseReceiveLinks(queue: string): () => void;
  /** Retires every injected fault. */
  clear(): void;
}

interface ActiveFault extends InjectedFault {
  hits: number;
}

/** The rule book behind `faults.inject`; the emulator asks it before acting on an operation. */
export class FaultBook {
  readonly #faults: ActiveFault[] = [];

  get empty(): boolean {
    return this.#faults.length === 0;
  }

  inject(rule: FaultRule): InjectedFault {
    validate(rule);
    const frozen = Object.freeze({ ...rule });
    const fault: ActiveFault = {
      rule: frozen,
      hits: 0,
      remove: () => {
        const index = this.#faults.indexOf(fault);
        if (index >= 0) this.#faults.splice(index, 1);
      },
    };
    this.#faults.push(fault);
    return fault;
  }

  clear(): void {
    this.#faults.length = 0;
  }

  /**
   * The verdict for an operation on a queue, or undefined to proceed normally. `messages` builds the snapshots a
   * `when` predicate needs, only if one is asked.
   */
  check(operation: SettleOperation | "send" | "renewLock", queue: string, messages: () => MessageSnapshot[]): FaultVerdict | undefined {
    if (this.#faults.length === 0) return undefined;
    let snapshots: MessageSnapshot[] | undefined;
    for (const fault of [...this.#faults]) {
      const rule = fault.rule;
      if (rule.operation !== operation && !(rule.operation === "settle" && isSettle(operation))) continue;
      if (rule.queue !== undefined && rule.queue !== queue) continue;
      if (rule.when) {
        snapshots ??= messages();
        if (!snapshots.some((message) => rule.when?.(message) === true)) continue;
      }
      fault.hits++;
      if (rule.times !== undefined && fault.hits >= rule.times) fault.remove();
      if (rule.action === "delay") return { action: "delay", delayMs: rule.delayMs ?? 0 };
      return { action: rule.action };
    }
    return undefined;
  }
}

function isSettle(operation: string): boolean {
  return operation === "complete" || operation === "abandon" || operation === "deadLetter" || operation === "defer";
}

const operations: readonly FaultOperation[] = ["send", "renewLock", "complete", "abandon", "deadLetter", "defer", "settle"];
const actions: readonly FaultAction[] = ["serverBusy", "delay", "never"];

function validate(rule: FaultRule): void {
  if (!operations.includes(rule.operation)) {
    throw new TypeError(`Fault operation must be one of ${operations.join(", ")}; got ${String(rule.operation)}`);
  }
  if (!actions.includes(rule.action)) {
    throw new TypeError(`Fault action must be one of ${actions.join(", ")}; got ${String(rule.action)}`);
  }
  if (rule.action === "delay" && (rule.delayMs === undefined || !Number.isFinite(rule.delayMs) || rule.delayMs < 0)) {
    throw new RangeError(`A delay fault needs delayMs >= 0; got ${rule.delayMs}`);
  }
  if (rule.times !== undefined && (!Number.isInteger(rule.times) || rule.times < 1)) {
    throw new RangeError(`Fault times must be an integer >= 1; got ${rule.times}`);
  }
}
