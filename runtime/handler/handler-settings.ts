// What a billing handler resolves once, when it is created: the deps with their defaults filled in, so the
// per-message steps read plain fields and never re-derive a default per message.
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import type Stripe from "stripe";
import { usageEventBilling, type BillingEventDefinition } from "../flows/billing-event.js";
import type { BillingHandlerDeps, DeliveryPorts } from "./handler-deps.js";
import type { StepHook } from "./consumer-steps.js";
import { ConfigurationError } from "../core/errors.js";
import type { FlowAdapter } from "../flows/flow-adapter.js";
import { paymentIntentFlow } from "../flows/payment-intent-flow.js";
import { unobservedStripeCall, type StripeCallObserver } from "../stripe/stripe-call.js";
import type { StripeGovernance } from "../resilience/governed-stripe-call.js";
import type { GuardStore } from "../guard/guard-store.js";
import { defaultRetryPolicy, type RetryPolicy } from "./settlement-policy.js";
import type { VaultKeyProvider } from "../stripe/vault/key-provider.js";

export interface HandlerSettings {
  scope: string;
  policy: RetryPolicy;
  log: (line: string) => void;
  now: () => number;
  flow: FlowAdapter<unknown>;
  definition: BillingEventDefinition<unknown, unknown>;
  store: GuardStore;
  slot: <T>(work: () => Promise<T>) => Promise<T>;
  stripeCall: StripeCallObserver;
  governance: StripeGovernance | undefined;
  keys: VaultKeyProvider;
  stripeFor(apiKey: string): Stripe;
  owner: string;
  expectedTotalCents(billingPeriod: string): number;
  hook: StepHook | undefined;
  isStopped: (() => boolean) | undefined;
  onHookWait: ((message: ServiceBusReceivedMessage, waiting: boolean) => void) | undefined;
}

export function handlerSettings(deps: BillingHandlerDeps): HandlerSettings {
  if (!deps.store) throw new ConfigurationError("createBillingHandler needs the guard's store (Guard.open)");
  return {
    scope: deps.scope ?? "billing",
    policy: deps.retryPolicy ?? defaultRetryPolicy,
    log: deps.log ?? (() => {}),
    now: deps.now ?? Date.now,
    flow: (deps.flow ?? paymentIntentFlow) as FlowAdapter<unknown>,
    definition: (deps.event ?? usageEventBilling) as BillingEventDefinition<unknown, unknown>,
    store: deps.store as GuardStore,
    slot: deps.stripeSlot ?? runNow,
    stripeCall: deps.stripeCall ?? unobservedStripeCall,
    governance: deps.stripeGovernance,
    keys: deps.keys,
    stripeFor: deps.stripeFor,
    owner: deps.owner,
    expectedTotalCents: deps.expectedTotalCents,
    hook: deps.hook,
    isStopped: deps.isStopped,
    onHookWait: deps.onHookWait,
  };
}

/** The settings for one delivery that brings its own ports (DeliveryPorts); the rest as resolved once. */
export function withDeliveryPorts(settings: HandlerSettings, ports: DeliveryPorts): HandlerSettings {
  return {
    ...settings,
    ...(ports.store === undefined ? {} : { store: ports.store as GuardStore }),
    ...(ports.stripeSlot === undefined ? {} : { slot: ports.stripeSlot }),
    ...(ports.stripeCall === undefined ? {} : { stripeCall: ports.stripeCall }),
  };
}

const runNow = <T>(work: () => Promise<T>): Promise<T> => work();
