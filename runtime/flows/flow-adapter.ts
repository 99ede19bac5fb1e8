// What differs per Stripe billing flow, behind the one guard primitive: the calls (with their recovery points), how
// an error classifies, how a result maps to an outcome, how a billing is found after Stripe's 24 h key window, and
// the flow's own limits (key length, timestamps).
import type Stripe from "stripe";
import type { GuardContext, GuardErrorClass, GuardWorkResult } from "../guard/guarded-run.js";
import { unobservedStripeCall, type StripeCallObserver } from "../stripe/stripe-call.js";
import { vaultAnswered } from "../stripe/vault/vault-refusal.js";

// The flows' names and their Stripe calls are tuning's (flow-calls.ts): the infra tunes a queue by the same count.
import type { FlowName } from "../../tuning/flow-calls.js";

/** Stripe may prune an idempotency key once it is 24 hours old: after that, look up before calling again. */
export const stripeKeyWindowMs = 24 * 3_600_000;

export interface FlowContext extends GuardContext {
  /** Milliseconds since the epoch, from the consumer's clock. */
  now: number;
  /**
   * Past Stripe's key window since the record was first claimed, by the end of this attempt's lease: the key alone no
   * longer proves anything. Judged by the lease's end, not the attempt's start: a try held past its timeout while the
   * window closed, retried by the SDK, went out under a key Stripe had pruned and charged a second time.
   */
  pastKeyWindow: boolean;
  /** Every Stripe call goes through this, named for its operation (`charges.create`): telemetry's span per call. */
  stripeCall: StripeCallObserver;
}

export interface FlowAdapter<R> {
  readonly name: FlowName;
  /** Stripe calls one run makes at most (tuning's flowStripeCalls): sizes the lease (one delivery budget per call). */
  readonly calls: number;
  /** An input problem Stripe would refuse (a meter event's timestamp out of range...): the run is invalid, no call. */
  check?(request: R, now: number): string | undefined;
  /**
   * The Stripe work under the guard: named steps for multi-call flows, look-ups past the key window. Inside the
   * window, before its first recovery point, it makes no Stripe call but the one under the record's key (or that
   * step's key): a 400 there then proves Stripe holds nothing for the record, which the guard forgets
   * (GuardRunOptions.keyWindowMs, given by the consumer and the reconciler).
   */
  execute(stripe: Stripe, request: R, context: FlowContext): Promise<GuardWorkResult>;
  /** What a thrown error means for this flow. */
  classify(error: unknown, request: R, idempotencyKey: string): GuardErrorClass;
}

/**
 * Builds a FlowContext from the guard's, on the caller's clock; Stripe calls unobserved unless told otherwise. Every
 * flow's every call answers a vault's refusal as the vault's error inside the observer (stripe/vault/vault-refusal.ts), so
 * the rate governor and the breaker never see a vault's cap as Stripe's 429: the one place for all flows.
 */
export function flowContext(context: GuardContext, now: number, keyWindowMs = stripeKeyWindowMs, stripeCall = unobservedStripeCall): FlowContext {
  // No try once the lease lapsed, governed or not: another delivery may hold the record by then.
  const vaultAware: StripeCallObserver = (operation, call) =>
    stripeCall(operation, () => {
      context.signal.throwIfAborted();
      return vaultAnswered(call);
    });
  const attemptEnds = Math.max(now, context.leaseUntil?.getTime() ?? now);
  return { ...context, now, pastKeyWindow: attemptEnds - context.createdAt.getTime() >= keyWindowMs, stripeCall: vaultAware };
}

/** Unix seconds to look back from, for list-by-`created` look-ups: an hour of slack for clock skew. */
export function lookupFrom(createdAt: Date): number {
  return Math.floor(createdAt.getTime() / 1000) - 3_600;
}
