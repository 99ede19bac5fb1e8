// The settlement table's rule for an outcome that says nothing about the event: a dependency throttled or down, or
// a twin delivery holding the billing's lease. A wait, not an attempt: rescheduled under the same attempt number after
// a short backoff (1 s doubling to 10 s, equal jitter: short, so the backlog drains within seconds once the dependency
// is back or the twin has settled; the breaker keeps the replica from taking more meanwhile), until the event's
// deadline, then dead-lettered `EventDeadlineExceeded`.
import { createHash } from "node:crypto";
import type { DependencyFault } from "../guard/dependency-fault.js";

export const deadlineExceededReason = "EventDeadlineExceeded";

export interface WaitInfo {
  attempt: number;
  chainId: string;
  idempotencyKey: string;
  /** Waits so far in this chain. */
  waits: number;
  /** The event's deadline (epoch ms). */
  deadline: number;
  now: number;
}

export interface WaitBackoff {
  firstDelayMs: number;
  maxDelayMs: number;
}

export const defaultWaitBackoff: WaitBackoff = { firstDelayMs: 1_000, maxDelayMs: 10_000 };

export type WaitAction =
  | { action: "dead-letter"; reason: string; description: string }
  | { action: "retry-later"; attempt: number; waits: number; delayMs: number; messageId: string; description: string };

/** What a wait is for, in its description: the dependency and how it failed. */
export function faultLabel(fault: DependencyFault): string {
  return `${fault.dependency} ${fault.cause === "throttled" ? "throttled" : "unavailable"}`;
}

export interface WaitBounds {
  backoff?: WaitBackoff;
  /** Not later than this (ms): a twin's lease ends then, and the billing is free to take over. */
  maxDelayMs?: number;
}

export function settleWait(what: string, detail: string, info: WaitInfo, bounds: WaitBounds = {}): WaitAction {
  const backoff = bounds.backoff ?? defaultWaitBackoff;
  if (info.now >= info.deadline) {
    return {
      action: "dead-letter",
      reason: deadlineExceededReason,
      description: `${what} past the event's deadline ${new Date(info.deadline).toISOString()} (after ${info.waits} waits): ${detail}`,
    };
  }
  const waits = info.waits + 1;
  const step = Math.min(backoff.maxDelayMs, backoff.firstDelayMs * 2 ** Math.min(30, info.waits));
  const fraction = createHash("sha256").update(`${info.idempotencyKey}\u0000wait\u0000${waits}`).digest().readUInt32BE(0) / 0x1_0000_0000;
  const jittered = Math.min(bounds.maxDelayMs ?? Infinity, Math.round(step / 2 + (step / 2) * fraction));
  const delayMs = Math.min(jittered, Math.max(0, info.deadline - info.now));
  return { action: "retry-later", attempt: info.attempt, waits, delayMs, messageId: waitMessageId(info.chainId, info.attempt, waits), description: `${what} (a wait, not an attempt): ${detail}` };
}

const maxMessageIdLength = 128;

/** Deterministic per (chain, attempt, wait), as retry ids are: a crash re-running the step schedules a twin that duplicate detection drops. */
export function waitMessageId(chainId: string, attempt: number, waits: number): string {
  const readable = `${chainId}:retry:${attempt}:wait:${waits}`;
  if (readable.length <= maxMessageIdLength) return readable;
  return `${createHash("sha256").update(chainId).digest("hex")}:retry:${attempt}:wait:${waits}`;
}
