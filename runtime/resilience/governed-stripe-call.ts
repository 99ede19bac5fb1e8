// Every Stripe call of a delivery through the fleet's budget and Stripe's breaker: wait for the governor's token,
// call, and on a 429 (not executed, so the same key is safe) wait for the next token and call again, within the
// delivery's lease. A 429 about one object (lock_timeout) cuts no rate: the call waits a moment (the other request
// holding the object ends) and goes again. An outage failure tells the breaker; while it is open nothing is sent.
// Faults leave as DependencyUnavailableError, so the outcome says a dependency, not the event, failed. No try starts
// once the lease lapsed (its signal) or past the lease's last start (a 429 loop that always finds a token would
// otherwise go on until Stripe answered: a run outliving its lease, judged inside the key window, calls past it).
import { setTimeout as sleep } from "node:timers/promises";
import type { StripeCallObserver } from "../stripe/stripe-call.js";
import type { CircuitBreaker } from "./circuit-breaker.js";
import { DependencyUnavailableError, stripeFault } from "../guard/dependency-fault.js";
import { objectLimiter } from "./fleet-share.js";
import type { RateGovernor } from "./rate-governor.js";

/** The wait before retrying a call whose object was locked: 100 ms, doubling, at most 1 s. */
function objectLockWaitMs(retries: number): number {
  return Math.min(1_000, 100 * 2 ** retries);
}

export interface StripeGovernance {
  governor: RateGovernor;
  breaker: CircuitBreaker;
  /** The governor's clock (ms): deadlines are on it. */
  now: () => number;
  /** Worst case of one Stripe call (timeout x tries + backoff): a wait leaves this much of the lease for the call. */
  callWorstCaseMs: number;
  /** Told each 429 (telemetry). */
  onThrottled?: (limiter: string) => void;
}

/** The delivery's lease as the guard holds it. */
export interface GovernedLease {
  /** The clock `leaseUntil` is on (the guard's); default Date.now. */
  now?: () => number;
  /** Aborted when the lease lapses (GuardContext.signal): no try starts after it. */
  signal?: AbortSignal;
}

/**
 * The delivery's Stripe calls, governed. `leaseUntil` (ms since the epoch on `lease.now`, the guard's clock): when
 * the delivery's lease lapses.
 */
export function governedStripeCall(inner: StripeCallObserver, governance: StripeGovernance, leaseUntil: number | undefined, lease: GovernedLease = {}): StripeCallObserver {
  const { governor, breaker, now } = governance;
  const leaseNow = lease.now ?? Date.now;
  // On the governor's clock: the last instant a call may start and still end inside the lease. What is left of the
  // lease is read on the lease's own clock: a guard on a clock ahead of Date.now would otherwise never reach it.
  const deadline = leaseUntil === undefined ? undefined : now() + (leaseUntil - leaseNow()) - governance.callWorstCaseMs;
  return async (operation, call) => {
    for (let lockedRetries = 0; ; ) {
      lease.signal?.throwIfAborted();
      breaker.check();
      const sentAt = await governor.acquire(operation, deadline === undefined ? {} : { deadline });
      lease.signal?.throwIfAborted();
      try {
        const result = await inner(operation, call);
        governor.answered(operation, undefined, sentAt);
        breaker.succeeded();
        return result;
      } catch (error) {
        const fault = stripeFault(error);
        if (fault?.cause === "throttled" && fault.limiter === objectLimiter) {
          governor.answered(operation, objectLimiter, sentAt);
          const waitMs = objectLockWaitMs(lockedRetries++);
          if (deadline !== undefined && now() + waitMs > deadline) {
            // A lock_timeout 429 is not executed: nothing of this call was sent.
            throw new DependencyUnavailableError(fault, `Stripe's object stays locked past the lease: ${describe(error)}`, { cause: error, nothingSent: true });
          }
          await sleep(waitMs);
          continue;
        }
        if (fault?.cause === "throttled") {
          // Stripe did not execute it: cut the rate, then take the next token and try the same call again, while the
          // lease has room for it (a token at hand is granted whatever the deadline).
          governor.answered(operation, fault.limiter ?? "global", sentAt);
          governance.onThrottled?.(fault.limiter ?? "global");
          if (deadline !== undefined && now() > deadline) {
            throw new DependencyUnavailableError(fault, `Stripe throttled every try until the lease's end: ${describe(error)}`, { cause: error, nothingSent: true });
          }
          continue;
        }
        if (fault?.cause === "outage") {
          breaker.failed(describe(error));
          throw new DependencyUnavailableError(fault, `Stripe is unavailable: ${describe(error)}`, { cause: error });
        }
        // Any other answer (a decline, a 400, a 409) is Stripe working.
        governor.answered(operation, undefined, sentAt);
        breaker.succeeded();
        throw error;
      }
    }
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
