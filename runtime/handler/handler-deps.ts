// What a billing handler is made of (its dependencies) and what it settles through; billing-handler.ts builds it.
import type { ServiceBusReceivedMessage, ServiceBusReceiver, ServiceBusSender } from "@azure/service-bus";
import type Stripe from "stripe";
import type { BillingEventDefinition } from "../flows/billing-event.js";
import type { StepHook } from "./consumer-steps.js";
import type { FlowAdapter } from "../flows/flow-adapter.js";
import type { StripeCallObserver } from "../stripe/stripe-call.js";
import type { StripeGovernance } from "../resilience/governed-stripe-call.js";
import type { GuardStore } from "../guard/guard-store.js";
import type { RetryPolicy } from "./settlement-policy.js";
import type { VaultKeyProvider } from "../stripe/vault/key-provider.js";

export type MessageSettler = Pick<ServiceBusReceiver, "completeMessage" | "deadLetterMessage">;
export type RetryScheduler = Pick<ServiceBusSender, "scheduleMessages">;

export interface BillingHandlerDeps {
  /** Where the billing records live: the guard (`Guard.open`), or a decorated one (decorate-store.ts). */
  store: GuardStore<never>;
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
  /** The Stripe budget's governor and Stripe's breaker (resilience/); default none: calls go straight out. */
  stripeGovernance?: StripeGovernance;
}

/**
 * One delivery's own instances of the handler's ports, in place of the deps' (the consumer's telemetry hands each
 * delivery ports bound to it, so what they report counts for that delivery). An absent field keeps the deps' one.
 */
export interface DeliveryPorts {
  store?: GuardStore<never>;
  stripeSlot?: <T>(work: () => Promise<T>) => Promise<T>;
  stripeCall?: StripeCallObserver;
}

export type BillingHandler = (message: ServiceBusReceivedMessage, receiver: MessageSettler, sender: RetryScheduler, ports?: DeliveryPorts) => Promise<void>;
