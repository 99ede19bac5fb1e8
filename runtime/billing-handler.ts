// The per-message billing flow (design.md, "The billing flow"): parse -> stable key -> claim -> Stripe -> record
// -> settle. One function per message; it never throws and never abandons (see settlement-policy.ts for why).
import type { ServiceBusReceivedMessage, ServiceBusReceiver, ServiceBusSender } from "@azure/service-bus";
import { isServiceBusError } from "@azure/service-bus";
import type Stripe from "stripe";
import { parseBillingEvent, usageEventBilling, type Billable, type BillingEventDefinition } from "./billing-event.js";
import type { StepHook, ConsumerStep } from "./consumer-steps.js";
import { ConfigurationError, InvalidEventError } from "./errors.js";
import { flowContext, type FlowAdapter } from "./flows/flow-adapter.js";
import { paymentIntentFlow } from "./flows/payment-intent-flow.js";
import { configurationReason } from "./flows/stripe-error-class.js";
import type { BillingGuard } from "./guard/billing-guard.js";
import { billingRecordStore } from "./guard/billing-store.js";
import type { GuardStore } from "./guard/guard-store.js";
import { runGuarded, type GuardOutcome } from "./guard/guarded-run.js";
import { attemptOf, chainIdOf, retryMessage } from "./retry-chain.js";
import { defaultRetryPolicy, onSettleFailure, settle, type BillingOutcome, type RetryPolicy } from "./settlement-policy.js";
import { stableKey } from "./stable-key.js";
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
}

export type BillingHandler = (message: ServiceBusReceivedMessage, receiver: MessageSettler, sender: RetryScheduler) => Promise<void>;

/** Where the flow stopped: what the settlement needs to know. */
interface FlowResult {
  outcome: BillingOutcome;
  event?: unknown;
  billing?: Billable<unknown>;
  idempotencyKey?: string;
}

/** A hook froze the flow and the consumer stopped meanwhile: nothing after the boundary may run. */
class Stopped extends Error {}

/** The guard's outcome as the settlement table's. */
function billingOutcome(outcome: GuardOutcome): BillingOutcome {
  switch (outcome.kind) {
    case "done":
      return { kind: "charged" };
    case "already-done":
      return { kind: "already-billed" };
    case "declined":
      return { kind: "declined" };
    case "busy":
      return { kind: "unknown", detail: "another consumer holds the billing lease", minDelayMs: outcome.retryAfterMs };
    case "mismatch":
      return { kind: "invalid", reason: "BillingRecordMismatch", detail: outcome.reason };
    case "cap-exceeded":
      return { kind: "spend-cap", detail: outcome.reason };
    case "invalid":
      if (outcome.reason === configurationReason) return { kind: "configuration", detail: outcome.detail };
      return { kind: "invalid", reason: outcome.reason === "InvalidGuardInput" ? "InvalidEvent" : outcome.reason, detail: outcome.detail };
    case "unknown":
      return { kind: "unknown", detail: outcome.detail };
  }
}

export function createBillingHandler(deps: BillingHandlerDeps): BillingHandler {
  const scope = deps.scope ?? "billing";
  const policy = deps.retryPolicy ?? defaultRetryPolicy;
  const log = deps.log ?? (() => {});
  const now = deps.now ?? Date.now;
  const flow = (deps.flow ?? paymentIntentFlow) as FlowAdapter<unknown>;
  const definition = (deps.event ?? usageEventBilling) as BillingEventDefinition<unknown, unknown>;
  if (!deps.store && !deps.guard) throw new ConfigurationError("createBillingHandler needs a guard (billing_records) or a store");
  const store = (deps.store ?? billingRecordStore(deps.guard as BillingGuardPort)) as GuardStore;
  // billing_records moves charged -> completed after settlement; other stores have no such state.
  const completions = deps.store ? undefined : deps.guard;
  const slot = deps.stripeSlot ?? runNow;

  const stepsOf = (message: ServiceBusReceivedMessage) => async (name: ConsumerStep, event: unknown) => {
    if (!deps.hook) return;
    const stoppedBefore = deps.isStopped?.() ?? false;
    const waiting = (deps.hook as (step: ConsumerStep, event: unknown) => void | Promise<void>)(name, event);
    // A hook that returns at once is no wait: nothing froze, whatever it did (even stopping the consumer).
    if (!waiting) return;
    deps.onHookWait?.(message, true);
    try {
      await waiting;
    } finally {
      deps.onHookWait?.(message, false);
    }
    // Only a flow frozen in a hook while the consumer stopped is cut off (a simulated crash). A flow that merely
    // crosses a boundary during a graceful stop (SIGTERM) runs to its settlement: that is what the stop waits for.
    if (!stoppedBefore && deps.isStopped?.()) throw new Stopped(name);
  };

  /** Steps 1-5: everything up to, not including, settling the message. */
  const run = async (message: ServiceBusReceivedMessage, step: ReturnType<typeof stepsOf>): Promise<FlowResult> => {
    const parsed = await parseBillingEvent(definition, message.body);
    if (!parsed.ok) return { outcome: { kind: "invalid", reason: "InvalidEvent", detail: parsed.reason } };
    const event = parsed.event;
    let billing: Billable<unknown>;
    let key: string;
    let request: unknown;
    try {
      billing = definition.toBilling(event);
      key = stableKey(billing.keyFields ?? billing.key, { scope });
      request = billing.request(key);
    } catch (error) {
      // Only a proven-invalid event is dead-lettered as InvalidEvent; a bug in building the billing is no verdict on it.
      if (error instanceof InvalidEventError) return { outcome: { kind: "invalid", reason: "InvalidEvent", detail: error.message }, event };
      return { outcome: { kind: "unknown", detail: `building the billing failed: ${describe(error)}` }, event };
    }
    const result = (outcome: BillingOutcome): FlowResult => ({ outcome, event, billing, idempotencyKey: key });
    const problem = flow.check?.(request, now());
    if (problem) return result({ kind: "invalid", reason: "InvalidEvent", detail: `${flow.name}: ${problem}` });
    const period = billing.spend?.period ?? "unpriced";
    const outcome = await runGuarded(
      store,
      {
        scope,
        key: billing.key,
        payload: request as Record<string, unknown>,
        ...(billing.spend === undefined ? {} : { spend: billing.spend }),
        flow: flow.name,
        idempotencyKey: key,
        owner: deps.owner,
      },
      async (context) => {
        const apiKey = await deps.keys.keyFor(period, { expectedTotalCents: deps.expectedTotalCents(period) });
        const stripe = deps.stripeFor(apiKey);
        return slot(() => flow.execute(stripe, request, flowContext(context, now())));
      },
      {
        classify: (error) => flow.classify(error, request, key),
        hooks: {
          afterClaim: () => step("afterClaim", event),
          afterWork: () => step("afterStripe", event),
          afterRecord: () => step("afterRecord", event),
        },
        now,
      },
    );
    return result(billingOutcome(outcome));
  };

  return async (message, receiver, sender) => {
    const step = stepsOf(message);
    let ended: FlowResult;
    try {
      ended = await run(message, step);
    } catch (error) {
      if (error instanceof Stopped) return;
      // A bug or an unforeseen failure: the outcome is unknown, never a reason to throw (a throw abandons).
      ended = { outcome: { kind: "unknown", detail: `unexpected: ${describe(error)}` } };
    }
    const { outcome, event, billing } = ended;
    const attempt = attemptOf(message.applicationProperties);
    const chainId = chainIdOf(message);
    const action = settle(outcome, { attempt, chainId, idempotencyKey: ended.idempotencyKey ?? chainId }, policy);
    const who = billing ? Object.values(billing.key).join(" ") : `message ${String(message.messageId)}`;

    try {
      if (event !== undefined) await step("beforeComplete", event);
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
        if (completed && action.markCompleted && completions && billing) {
          // Batched with other completions and not awaited: the message is settled, so this delivery's slot is free
          // now. A completion never written leaves the record `charged`, which a replay already treats as billed.
          completions
            .markCompletedLater({ customerId: String(billing.key.customerId), billingPeriod: String(billing.key.billingPeriod) })
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
