// What a guarded run's work answers, what the run ends with, and recording it in the store: done and declined are
// recorded, a refusal that proves Stripe holds nothing for the record forgets it (ForgetGround in guard-store.ts),
// anything else releases the record to recovery, pending and reserved. Nothing here throws but the phase hooks.
import { describeError } from "../core/describe-error.js";
import { DependencyUnavailableError, type DependencyFault } from "./dependency-fault.js";
import type { ForgetGround, GuardStore, StoreLease } from "./guard-store.js";

/** What the work answers when Stripe answered. */
export type GuardWorkResult =
  /** `replayed`: Stripe answered from its idempotency cache (telemetry counts a duplicate it prevented). */
  | { status: "done"; objectId: string; result?: Record<string, unknown>; replayed?: boolean }
  | { status: "declined"; reason: string; objectId?: string; replayed?: boolean };

/** A thrown error, classified by the flow (flows/*.ts); unclassified errors are unknown. */
export type GuardErrorClass =
  | { kind: "declined"; reason: string; objectId?: string }
  /** Stripe already has it (e.g. a meter event's duplicate identifier): the work is done. */
  | { kind: "done"; objectId: string }
  /**
   * `refusedUnderKey`: Stripe judged the request invalid (a 400, not an idempotency error), so under the record's
   * key it holds nothing (ForgetGround in guard-store.ts); it counts only for a run given `keyWindowMs`.
   */
  | { kind: "invalid"; reason: string; detail: string; refusedUnderKey?: boolean }
  | { kind: "cap-exceeded"; reason: string }
  /** `nothingSent`: a dependency refused before any request left (a breaker open, a wait past the lease). */
  | { kind: "unknown"; detail: string; fault?: DependencyFault; nothingSent?: boolean };

export type GuardOutcome =
  /** Done now and recorded. */
  | { kind: "done"; objectId: string; idempotencyKey: string }
  /** Recorded done by an earlier run: nothing was called. */
  | { kind: "already-done"; objectId: string | null; idempotencyKey: string }
  /** Declined now (recorded, reservation given back) or earlier (`previously`): never retry it. */
  | { kind: "declined"; reason: string; previously: boolean; idempotencyKey: string }
  /** Another holder's lease is live: try again after `retryAfterMs`. */
  | { kind: "busy"; retryAfterMs: number; idempotencyKey: string }
  /** Same identity, other payload, spend or key: refused. */
  | { kind: "mismatch"; reason: string; idempotencyKey: string }
  /** Our cap (or the vault key's) refuses the spend. */
  | { kind: "cap-exceeded"; reason: string; idempotencyKey?: string }
  /** The input, or the request as Stripe judged it, is wrong: no retry can fix it. */
  | { kind: "invalid"; reason: string; detail: string; idempotencyKey?: string }
  /**
   * Stripe may or may not have done it: the record stays pending and reserved; retry with the same key. `fault`: a
   * dependency was down or throttling (dependency-fault.ts), which is no attempt of the event's.
   */
  | { kind: "unknown"; detail: string; idempotencyKey?: string; fault?: DependencyFault };

/** Phase boundaries the caller may observe (crash tests, step hooks). A hook that throws ends the run with its error. */
export interface GuardPhaseHooks {
  afterClaim?(): Promise<void> | void;
  afterWork?(): Promise<void> | void;
  afterRecord?(): Promise<void> | void;
}

/** What the run knew when the work ended: whether a refusal can prove Stripe holds nothing for the record. */
export interface RefusalFacts {
  /** The claim was the record's first attempt: nothing earlier could have reached Stripe. */
  firstAttempt: boolean;
  /** A recovery point is recorded: Stripe holds that step's object. */
  stepRecorded: boolean;
  /** GuardRunOptions.keyWindowMs: the work's one Stripe call before a step is under the record's key. */
  keyWindowMs: number | undefined;
}

/** The ground on which a refusal forgets the record, or none: it is released for recovery. */
function forgetGround(refusal: { reason?: string; refusedUnderKey?: boolean }, facts: RefusalFacts): ForgetGround | undefined {
  // An idempotency conflict means an earlier request under the key did reach Stripe, with other parameters.
  if (facts.stepRecorded || refusal.reason === "StripeIdempotencyConflict") return undefined;
  if (facts.firstAttempt) return { kind: "first-attempt" };
  // After an unknown attempt only Stripe's own refusal under the key proves anything, and only inside its window
  // (the store checks the window by its clock). A vault's refusal or a late check never reached Stripe: it proves
  // nothing about what the earlier attempt left there.
  if (refusal.refusedUnderKey === true && facts.keyWindowMs !== undefined) return { kind: "refused-under-key", keyWindowMs: facts.keyWindowMs };
  return undefined;
}

/** Records what the work answered (the claim's lease held) and returns the run's outcome. */
export async function recordOutcome<L extends StoreLease>(
  store: GuardStore<L>,
  lease: L,
  answer: GuardWorkResult | GuardErrorClass,
  idempotencyKey: string,
  hooks: GuardPhaseHooks | undefined,
  facts: RefusalFacts,
): Promise<GuardOutcome> {
  const release = async (outcome: GuardOutcome): Promise<GuardOutcome> => {
    try {
      await store.release(lease);
    } catch {
      // The lease lapses on its own; the record stays pending either way.
    }
    return outcome;
  };
  // Every way out of a claim ends the record or hands it to recovery. A refusal that proves Stripe holds nothing for
  // the record (forgetGround) ends it: removed, reservation given back, so the dead letter does not leave it pending
  // and reserved for ever. Anything else is released: pending for the retry and the reconciler (`stalePending`),
  // which re-runs it and reports what is still refused.
  const forgetOrRelease = async (outcome: GuardOutcome, ground: ForgetGround | undefined): Promise<GuardOutcome> => {
    try {
      if (ground !== undefined && (await store.forget(lease, ground))) return outcome;
    } catch {
      // Not removed: released below, so recovery finds it.
    }
    return release(outcome);
  };
  const kind = "status" in answer ? answer.status : answer.kind;
  switch (kind) {
    case "done": {
      const done = answer as { objectId: string; result?: Record<string, unknown> };
      try {
        await store.markDone(lease, { objectId: done.objectId, ...(done.result === undefined ? {} : { result: done.result }) });
      } catch (error) {
        // Done at Stripe, not recorded: the retry claims again and Stripe replays the same object.
        return release({ kind: "unknown", detail: `Stripe answered ${done.objectId}, recording it failed: ${describeError(error)}`, idempotencyKey, ...faultOf(error) });
      }
      await hooks?.afterRecord?.();
      return { kind: "done", objectId: done.objectId, idempotencyKey };
    }
    case "declined": {
      const declined = answer as { reason: string; objectId?: string };
      try {
        await store.markDeclined(lease, { reason: declined.reason, ...(declined.objectId === undefined ? {} : { objectId: declined.objectId }) });
      } catch (error) {
        return release({ kind: "unknown", detail: `declined, but recording it failed: ${describeError(error)}`, idempotencyKey, ...faultOf(error) });
      }
      await hooks?.afterRecord?.();
      return { kind: "declined", reason: declined.reason, previously: false, idempotencyKey };
    }
    case "invalid": {
      const invalid = answer as { reason: string; detail: string; refusedUnderKey?: boolean };
      return forgetOrRelease({ kind: "invalid", reason: invalid.reason, detail: invalid.detail, idempotencyKey }, forgetGround(invalid, facts));
    }
    case "cap-exceeded":
      return forgetOrRelease({ kind: "cap-exceeded", reason: (answer as { reason: string }).reason, idempotencyKey }, forgetGround({}, facts));
    default: {
      const { fault, detail, nothingSent } = answer as { fault?: DependencyFault; detail?: string; nothingSent?: boolean };
      const outcome: GuardOutcome = { kind: "unknown", detail: detail ?? "unknown", idempotencyKey, ...(fault === undefined ? {} : { fault }) };
      // A wait that provably sent nothing leaves an untouched record out: attempts and age count only what reached Stripe.
      const untouched = nothingSent === true && facts.firstAttempt && !facts.stepRecorded;
      return untouched ? forgetOrRelease(outcome, { kind: "first-attempt" }) : release(outcome);
    }
  }
}

/** A dependency's unavailability, carried into the outcome. */
export function faultOf(error: unknown): { fault?: DependencyFault } {
  return error instanceof DependencyUnavailableError ? { fault: error.fault } : {};
}
