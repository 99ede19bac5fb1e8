// The per-message billing flow (design.md, "The billing flow"): parse -> stable key -> claim -> Stripe -> record
// -> settle, each step in runtime/handler/. One function per message; it never throws and never abandons (see
// settlement-policy.ts for why).
import type { ServiceBusReceivedMessage, ServiceBusReceiver, ServiceBusSender } from "@azure/service-bus";
import type Stripe from "stripe";
import type { BillingEventDefinition } from "./billing-event.js";
import type { StepHook } from "./consumer-steps.js";
import type { FlowAdapter } from "./flows/flow-adapter.js";
import type { StripeCallObserver } from "./flows/stripe-call.js";
import type { BillingGuard } from "./guard/billing-guard.js";
import type { GuardStore } from "./guard/guard-store.js";
import { describeError, type FlowResult } from "./handler/flow-result.js";
import { guardedCharge } from "./handler/guarded-charge.js";
import { handlerSettings, type HandlerSettings } from "./handler/handler-settings.js";
import { isPrepared, prepareBilling } from "./handler/prepare-billing.js";
import { settleMessage } from "./handler/settle-message.js";
import { stepBoundaries, Stopped, type StepBoundary } from "./handler/step-boundary.js";
import { attemptOf, chainIdOf } from "./retry-chain.js";
import { settle, type RetryPolicy } from "./settlement-policy.js";
import type { VaultKeyProvider } from "./vault/key-provider.js";

export type BillingGuardPort = Pick<BillingGuard, "claim" | "markCharged" | "markDeclined" | "releaseLease" | "markCompletedLater" | "flushCompletions">;
export type MessageSettler = Pick<ServiceBusReceiver, "completeMessage" | "deadLetterMessage">;
export type RetryScheduler = Pick<ServiceBusSender, "scheduleMessages">;

export interface BillingHandlerDeps {
  /** billing_records (the default PaymentIntent consumer's store); unused when `store` is given. */
  guard?: BillingGuardPort;
  /** Any store for the guard primitive (e.g. `Guard` over guard_records, for other flows and identities). */
  store?: GuardStore<never>;
  /** The Stripe flow; default payment-intent. */
  flow?: FlowAdapter<never>;
  /** The team's events; default UsageEvent (one PaymentIntent per customer and month). */
  event?: BillingEventDefinition<never, never>;
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
  /** Milliseconds since the epoch (meter timestamps, the key window); default Date.now. */
  now?: () => number;
  /** True once the consumer is closing: a step frozen by a hook meanwhile must not continue after it returns. */
  isStopped?: () => boolean;
  /** Told when a message's flow waits on a step hook and when it resumes (close() does not wait for those). */
  onHookWait?: (message: ServiceBusReceivedMessage, waiting: boolean) => void;
  /**
   * Runs a Stripe call in one of a bounded number of slots (consumer.ts); default: no bound beyond the messages in
   * flight. The claim before it and the record and settlement after it run outside the slot, so they overlap other
   * messages' Stripe calls. The lease must then cover a wait for a slot as well as the call.
   */
  stripeSlot?: <T>(work: () => Promise<T>) => Promise<T>;
  /** Told each Stripe call the flow makes, by operation (the consumer's telemetry: a span per call); default none. */
  stripeCall?: StripeCallObserver;
}

export type BillingHandler = (message: ServiceBusReceivedMessage, receiver: MessageSettler, sender: RetryScheduler) => Promise<void>;

export function createBillingHandler(deps: BillingHandlerDeps): BillingHandler {
  const settings = handlerSettings(deps);
  return async (message, receiver, sender) => {
    const step = stepBoundaries(settings, message);
    const ended = await runFlow(settings, message, step);
    if (ended === stopped) return;
    const { outcome, event, billing } = ended;
    const chainId = chainIdOf(message);
    const action = settle(outcome, { attempt: attemptOf(message.applicationProperties), chainId, idempotencyKey: ended.idempotencyKey ?? chainId }, settings.policy);
    const who = billing ? Object.values(billing.key).join(" ") : `message ${String(message.messageId)}`;
    if (settings.hook !== undefined && event !== undefined && (await crossBeforeComplete(settings, step, event, who)) === stopped) return;
    await settleMessage(settings, { message, action, outcomeKind: outcome.kind, billing, chainId, who }, receiver, sender);
  };
}

/** A hook froze the flow and the consumer stopped meanwhile. */
const stopped = Symbol("stopped");

/** Steps 1-5: everything up to, not including, settling the message. Never throws (a throw abandons). */
async function runFlow(settings: HandlerSettings, message: ServiceBusReceivedMessage, step: StepBoundary): Promise<FlowResult | typeof stopped> {
  try {
    const prepared = await prepareBilling(settings, message.body);
    return isPrepared(prepared) ? await guardedCharge(settings, prepared, step) : prepared;
  } catch (error) {
    if (error instanceof Stopped) return stopped;
    // A bug or an unforeseen failure: the outcome is unknown, never a reason to throw.
    return { outcome: { kind: "unknown", detail: `unexpected: ${describeError(error)}` } };
  }
}

/** The last boundary, before settling: a hook that fails is logged, not a reason to leave the message unsettled. */
async function crossBeforeComplete(settings: HandlerSettings, step: StepBoundary, event: unknown, who: string): Promise<typeof stopped | undefined> {
  try {
    await step("beforeComplete", event);
  } catch (error) {
    if (error instanceof Stopped) return stopped;
    settings.log(`${who}: hook failed: ${describeError(error)}`);
  }
  return undefined;
}
