// One guarded run of a flow, the consumer's and the reconciler's alike: the record claimed, the flow executed with
// the (period, currency)'s vault key (fetched again once when the vault refuses it), in a Stripe slot, governed by the
// fleet's budget and Stripe's breaker when the caller runs them, the flow's errors classified (a past period's key
// refused for good is that billing's verdict), the outcome recorded. The handler maps the outcome to a settlement,
// the reconciler to its report; neither assembles the run itself, so a record is finished by the code that began it.
import type Stripe from "stripe";
import { runGuarded, type GuardOutcome, type GuardPhaseHooks, type Spend } from "../guard/guarded-run.js";
import type { GuardStore } from "../guard/guard-store.js";
import { governedStripeCall, type StripeGovernance } from "../resilience/governed-stripe-call.js";
import { unobservedStripeCall, type StripeCallObserver } from "../stripe/stripe-call.js";
import type { VaultKeyProvider } from "../stripe/vault/key-provider.js";
import { PastPeriodKeyRefused, pastPeriodKeyReason, withPeriodKey } from "../stripe/vault/period-key.js";
import { flowContext, stripeKeyWindowMs, type FlowAdapter } from "./flow-adapter.js";

/** One billing's record: who it is, what it asks, what it spends, under which key. */
export interface FlowRunRecord {
  scope: string;
  key: Readonly<Record<string, string | number>>;
  payload: Record<string, unknown>;
  spend?: Spend;
  /** The record's flow name (the registry's). */
  flow: string;
  idempotencyKey: string;
  owner: string;
}

/** How the run reaches Stripe and keeps time; the consumer's governance and slot when it has them. */
export interface FlowRunWay {
  store: GuardStore;
  keys: VaultKeyProvider;
  stripeFor(apiKey: string): Stripe;
  /** Sizes a period's vault key (its cap), as the consumer sizes it. */
  expectedTotalCents(billingPeriod: string): number;
  now(): number;
  /** Stripe's key window (tests shorten it); default 24 h. */
  keyWindowMs?: number;
  stripeCall?: StripeCallObserver;
  governance?: StripeGovernance;
  slot?: <T>(work: () => Promise<T>) => Promise<T>;
  hooks?: GuardPhaseHooks;
}

export function runFlowGuarded(flow: FlowAdapter<unknown>, record: FlowRunRecord, way: FlowRunWay): Promise<GuardOutcome> {
  const request = record.payload;
  const period = record.spend?.period ?? "unpriced";
  const currency = record.spend?.currency;
  const keyWindowMs = way.keyWindowMs ?? stripeKeyWindowMs;
  const slot = way.slot ?? runNow;
  return runGuarded(
    way.store,
    {
      scope: record.scope,
      key: record.key,
      payload: request,
      ...(record.spend === undefined ? {} : { spend: record.spend }),
      flow: record.flow,
      idempotencyKey: record.idempotencyKey,
      owner: record.owner,
    },
    async (context) => {
      // Governed when the caller runs a governor and breakers; each call waits within the lease.
      const observed = way.stripeCall ?? unobservedStripeCall;
      const stripeCall =
        way.governance === undefined ? observed : governedStripeCall(observed, way.governance, context.leaseUntil?.getTime(), { now: way.now, signal: context.signal });
      const keyRequest = { expectedTotalCents: way.expectedTotalCents(period), ...(currency === undefined ? {} : { currency }) };
      return withPeriodKey(way.keys, period, keyRequest, (apiKey) =>
        slot(() => flow.execute(way.stripeFor(apiKey), request, flowContext(context, way.now(), keyWindowMs, stripeCall))),
      );
    },
    {
      classify: (error) =>
        error instanceof PastPeriodKeyRefused ? { kind: "invalid", reason: pastPeriodKeyReason, detail: error.message } : flow.classify(error, request, record.idempotencyKey),
      ...(way.hooks === undefined ? {} : { hooks: way.hooks }),
      now: way.now,
      // Every flow's only call before a recovery point, inside the window, is under the record's key (flow-adapter.ts).
      keyWindowMs,
    },
  );
}

const runNow = <T>(work: () => Promise<T>): Promise<T> => work();
