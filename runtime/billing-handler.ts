// The per-message billing flow (design.md, "The billing flow"): parse -> stable key -> claim -> Stripe -> record
// -> settle. One function per message; it never throws and never abandons (see settlement-policy.ts for why).
import type { ServiceBusReceivedMessage, ServiceBusReceiver, ServiceBusSender } from "@azure/service-bus";
import { isServiceBusError } from "@azure/service-bus";
import type Stripe from "stripe";
import type { StepHook, ConsumerStep } from "./consumer-steps.js";
import type { UsageEvent } from "./usage-event.js";
import { InvalidEventError } from "./errors.js";
import { parseUsageEvent } from "./event-schema.js";
import type { BillingGuard } from "./guard/billing-guard.js";
import type { Lease } from "./guard/types.js";
import { attemptOf, chainIdOf, retryMessage } from "./retry-chain.js";
import { defaultRetryPolicy, onSettleFailure, settle, type BillingOutcome, type RetryPolicy } from "./settlement-policy.js";
import { stableKey } from "./stable-key.js";
import { classifyStripeError } from "./stripe/classify-error.js";
import { createPaymentIntent } from "./stripe/create-payment-intent.js";
import { buildPaymentIntentParams, type PaymentIntentRequest } from "./stripe/payment-intent-params.js";
import type { VaultKeyProvider } from "./vault/key-provider.js";

export type BillingGuardPort = Pick<BillingGuard, "claim" | "markCharged" | "markDeclined" | "releaseLease" | "markCompletedLater" | "flushCompletions">;
export type MessageSettler = Pick<ServiceBusReceiver, "completeMessage" | "deadLetterMessage">;
export type RetryScheduler = Pick<ServiceBusSender, "scheduleMessages">;

export interface BillingHandlerDeps {
  guard: BillingGuardPort;
  keys: VaultKeyProvider;
  /** A Stripe client for a period's key (cache them: one per key). */
  stripeFor(apiKey: string): Stripe;
  /** The stable key's scope; default "billing". */
  scope?: string;
  /** Who holds the guard's leases: one id per consumer instance. */
  owner: string;
  /** What a period is expected to bill in total: sizes the period's vault key cap. */
  expectedTotalCents(billingPeriod: string): number;
  retryPolicy?: RetryPolicy;
  hook?: StepHook;
  log?: (line: string) => void;
  /** True once the consumer is closing: a step frozen by a hook must not continue after it returns. */
  isStopped?: () => boolean;
  /** Told when a message's flow waits on a step hook and when it resumes (close() does not wait for those). */
  onHookWait?: (message: ServiceBusReceivedMessage, waiting: boolean) => void;
  /**
   * Runs a Stripe call in one of a bounded number of slots (consumer.ts); default: no bound beyond the messages in
   * flight. The claim before it and the record and settlement after it run outside the slot, so they overlap other
   * messages' Stripe calls. The lease must then cover a wait for a slot as well as the call.
   */
  stripeSlot?: <T>(work: () => Promise<T>) => Promise<T>;
}

export type BillingHandler = (message: ServiceBusReceivedMessage, receiver: MessageSettler, sender: RetryScheduler) => Promise<void>;

/** Where the flow stopped: what the settlement needs to know. */
interface FlowResult {
  outcome: BillingOutcome;
  event?: UsageEvent;
  idempotencyKey?: string;
}

/** A hook froze the flow and the consumer stopped meanwhile: nothing after the boundary may run. */
class Stopped extends Error {}

export function createBillingHandler(deps: BillingHandlerDeps): BillingHandler {
  const scope = deps.scope ?? "billing";
  const policy = deps.retryPolicy ?? defaultRetryPolicy;
  const log = deps.log ?? (() => {});

  const stepsOf = (message: ServiceBusReceivedMessage) => async (name: ConsumerStep, event: UsageEvent) => {
    if (deps.hook) {
      deps.onHookWait?.(message, true);
      try {
        await deps.hook(name, event);
      } finally {
        deps.onHookWait?.(message, false);
      }
    }
    if (deps.isStopped?.()) throw new Stopped(name);
  };

  const releaseQuietly = async (lease: Lease) => {
    try {
      await deps.guard.releaseLease(lease);
    } catch (error) {
      log(`release lease failed (it lapses on its own): ${describe(error)}`);
    }
  };

  /** Claim, then (claimed) the Stripe call: either an outcome that ends the flow or the lease with Stripe's answer. */
  const claimAndCall = async (
    event: UsageEvent,
    key: string,
    request: PaymentIntentRequest,
    step: ReturnType<typeof stepsOf>,
  ): Promise<{ outcome: BillingOutcome } | { lease: Lease; intent: Stripe.PaymentIntent } | { lease: Lease; error: unknown }> => {
    let claim;
    try {
      claim = await deps.guard.claim(
        { customerId: event.customerId, billingPeriod: event.billingPeriod, amountCents: event.amountCents, currency: event.currency, idempotencyKey: key, request: { ...request } },
        deps.owner,
      );
    } catch (error) {
      // Only a proven-invalid event is dead-lettered as InvalidEvent (the operator is told not to resubmit it). A
      // TypeError, a configuration slip or a database failure is no verdict on the event: retry with backoff.
      if (error instanceof InvalidEventError) return { outcome: { kind: "invalid", reason: "InvalidEvent", detail: error.message } };
      return { outcome: { kind: "unknown", detail: `guard failed: ${describe(error)}` } };
    }
    switch (claim.status) {
      case "already-billed":
        return { outcome: { kind: "already-billed" } };
      case "declined":
        return { outcome: { kind: "declined" } };
      case "busy":
        return { outcome: { kind: "unknown", detail: "another consumer holds the billing lease", minDelayMs: claim.retryAfterMs } };
      case "mismatch":
        return { outcome: { kind: "invalid", reason: "BillingRecordMismatch", detail: claim.reason } };
      case "cap-exceeded":
        return { outcome: { kind: "spend-cap", detail: claim.reason } };
      case "claimed":
        break;
    }
    const lease = claim.lease;
    await step("afterClaim", event);
    try {
      const apiKey = await deps.keys.keyFor(event.billingPeriod, { expectedTotalCents: deps.expectedTotalCents(event.billingPeriod) });
      const stripe = deps.stripeFor(apiKey);
      return { lease, intent: await (deps.stripeSlot ?? runNow)(() => createPaymentIntent(stripe, request, key)) };
    } catch (error) {
      return { lease, error };
    }
  };

  /** Steps 1-5: everything up to, not including, settling the message. */
  const run = async (message: ServiceBusReceivedMessage, step: ReturnType<typeof stepsOf>): Promise<FlowResult> => {
    const parsed = parseUsageEvent(message.body);
    if (!parsed.ok) return { outcome: { kind: "invalid", reason: "InvalidEvent", detail: parsed.reason } };
    const event = parsed.event;
    const key = stableKey(
      { customerId: event.customerId, billingPeriod: event.billingPeriod, amountCents: event.amountCents, currency: event.currency },
      { scope },
    );
    const request = buildPaymentIntentParams(event, key);
    const result = (outcome: BillingOutcome): FlowResult => ({ outcome, event, idempotencyKey: key });

    const attempt = await claimAndCall(event, key, request, step);
    if ("outcome" in attempt) return result(attempt.outcome);
    const { lease } = attempt;
    if ("error" in attempt) {
      const failure = classifyStripeError(attempt.error);
      await step("afterStripe", event);
      if (failure.kind !== "declined") {
        await releaseQuietly(lease);
        if (failure.kind === "invalid") return result({ kind: "invalid", reason: failure.reason, detail: failure.detail });
        return result(failure);
      }
      try {
        await deps.guard.markDeclined(lease, {
          reason: `${failure.code}: ${failure.message}`,
          ...(failure.paymentIntentId === undefined ? {} : { paymentIntentId: failure.paymentIntentId }),
        });
      } catch (recordError) {
        await releaseQuietly(lease);
        return result({ kind: "unknown", detail: `declined, but recording it failed: ${describe(recordError)}` });
      }
      await step("afterRecord", event);
      return result({ kind: "declined" });
    }
    const { intent } = attempt;
    await step("afterStripe", event);
    try {
      if (intent.status === "succeeded" || intent.status === "processing" || intent.status === "requires_capture") {
        await deps.guard.markCharged(lease, { paymentIntentId: intent.id });
      } else {
        await deps.guard.markDeclined(lease, { reason: `payment_intent_${intent.status}`, paymentIntentId: intent.id });
        await step("afterRecord", event);
        return result({ kind: "declined" });
      }
    } catch (recordError) {
      if (recordError instanceof Stopped) throw recordError;
      // Charged at Stripe, not recorded: the retry claims again and Stripe replays the same PaymentIntent.
      await releaseQuietly(lease);
      return result({ kind: "unknown", detail: `Stripe answered ${intent.id}, recording it failed: ${describe(recordError)}` });
    }
    await step("afterRecord", event);
    return result({ kind: "charged" });
  };

  return async (message, receiver, sender) => {
    const step = stepsOf(message);
    let flow: FlowResult;
    try {
      flow = await run(message, step);
    } catch (error) {
      if (error instanceof Stopped) return;
      // A bug or an unforeseen failure: the outcome is unknown, never a reason to throw (a throw abandons).
      flow = { outcome: { kind: "unknown", detail: `unexpected: ${describe(error)}` } };
    }
    const { outcome, event } = flow;
    const attempt = attemptOf(message.applicationProperties);
    const chainId = chainIdOf(message);
    const action = settle(outcome, { attempt, chainId, idempotencyKey: flow.idempotencyKey ?? chainId }, policy);
    const who = event ? `${event.customerId} ${event.billingPeriod}` : `message ${String(message.messageId)}`;

    try {
      if (event) await step("beforeComplete", event);
    } catch (error) {
      if (error instanceof Stopped) return;
      log(`${who}: hook failed: ${describe(error)}`);
    }

    const settleSafely = async (what: string, operation: () => Promise<void>): Promise<boolean> => {
      try {
        await operation();
        return true;
      } catch (error) {
        const code = isServiceBusError(error) ? error.code : undefined;
        log(`${who}: ${what} failed (${code ?? describe(error)}): ${onSettleFailure(code).note}`);
        return false;
      }
    };

    switch (action.action) {
      case "complete": {
        const completed = await settleSafely("complete", () => receiver.completeMessage(message));
        log(`${who}: ${outcome.kind}${completed ? ", completed" : ""}`);
        if (completed && action.markCompleted && event) {
          // Batched with other completions and not awaited: the message is settled, so this delivery's slot is free
          // now. A completion never written leaves the record `charged`, which a replay already treats as billed.
          deps.guard
            .markCompletedLater({ customerId: event.customerId, billingPeriod: event.billingPeriod })
            .catch((error: unknown) => log(`${who}: marking the record completed failed (it stays charged, which is billed): ${describe(error)}`));
        }
        return;
      }
      case "dead-letter": {
        await settleSafely("dead-letter", () =>
          receiver.deadLetterMessage(message, { deadLetterReason: action.reason, deadLetterErrorDescription: action.description.slice(0, 1024) }),
        );
        log(`${who}: dead-lettered ${action.reason}: ${action.description}`);
        return;
      }
      case "retry-later": {
        const scheduled = await settleSafely("scheduling the retry", async () => {
          await sender.scheduleMessages(
            retryMessage(message, { messageId: action.messageId, attempt: action.attempt, chainId, reason: action.description }),
            new Date(Date.now() + action.delayMs),
          );
        });
        if (!scheduled) {
          // Not completed: the lock lapses at the renewal deadline and the broker redelivers. Still no abandon.
          log(`${who}: retry not scheduled; leaving the message to its lock (redelivery after the renewal deadline)`);
          return;
        }
        await settleSafely("complete after scheduling the retry", () => receiver.completeMessage(message));
        log(`${who}: outcome unknown (${action.description}); retry ${action.attempt} as ${action.messageId} in ${action.delayMs} ms`);
        return;
      }
    }
  };
}

const runNow = <T>(work: () => Promise<T>): Promise<T> => work();

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
