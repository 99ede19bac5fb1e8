// The billing consumer: a Service Bus `subscribe` loop running the billing flow per message, with the settings
// that must agree (lock renewal deadline, Stripe timeout and retries, guard lease) taken from one queue tuning.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import pLimit from "p-limit";
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import type Stripe from "stripe";
import { coverageProblems, DEFAULT_STRIPE_BUDGET, deliveryBudgetMs, guardPoolSize, type QueueTuning } from "../tuning/index.js";
import type { BillingEventDefinition } from "./billing-event.js";
import type { PaymentIntentRequest } from "./stripe/payment-intent-params.js";
import type { UsageEvent } from "./usage-event.js";
import { createBillingHandler, type BillingGuardPort } from "./billing-handler.js";
import { ConfigurationError } from "./errors.js";
import type { FlowAdapter } from "./flows/flow-adapter.js";
import { paymentIntentFlow } from "./flows/payment-intent-flow.js";
import type { GuardStore } from "./guard/guard-store.js";
import { Guard } from "./guard/record-guard.js";
import type { ConsumerContext, RunningConsumer, StartConsumer } from "./consumer-contract.js";
import { BillingGuard } from "./guard/billing-guard.js";
import { configurationFaultGate, stripeKeyProbe } from "./configuration-fault.js";
import { connectServiceBus } from "./servicebus-connection.js";
import { checkQueueReachable, throttledErrorLog } from "./servicebus-preflight.js";
import { stableKey } from "./stable-key.js";
import { defaultRetryPolicy, type RetryPolicy } from "./settlement-policy.js";
import { createStripeClient } from "./stripe/client.js";
import { createBillingTelemetry, type BillingTelemetry } from "./telemetry/billing-telemetry.js";
import { EnvironmentKeyProvider } from "./vault/environment-key-provider.js";
import type { VaultKeyProvider } from "./vault/key-provider.js";

/** `E`: the team's event (default UsageEvent); `R`: the flow's request (default a PaymentIntent's params). */
export interface BillingConsumerOptions<E = UsageEvent, R = PaymentIntentRequest> extends ConsumerContext {
  /**
   * The queue's tuning (infra `tuneQueue`): lock renewal deadline, Stripe timeout and retries. With its
   * `lockDurationMs`, settings overridden in the context are checked against the queue's lock at start.
   */
  tuning?: Pick<QueueTuning, "consumer"> & Partial<Pick<QueueTuning, "lockDurationMs">>;
  /** The stable key's scope; default "billing". */
  scope?: string;
  /** Attempts before an unknown outcome is dead-lettered; default 8. */
  maxAttempts?: number;
  /** Per-period Stripe keys; default: `stripe.apiKey` for every period (EnvironmentKeyProvider). */
  keyProvider?: VaultKeyProvider;
  /** A period's expected total, sizing its vault key's cap; default `periodCapCents`. */
  expectedPeriodTotalCents?: number | ((billingPeriod: string) => number);
  /** An open guard to share (not closed by the consumer, its queued completions flushed); default: one opened from the context. */
  guard?: BillingGuardPort;
  /**
   * The Stripe flow (`paymentIntentFlow`, `chargeFlow`, `invoiceFlow`, `meterEventFlow`); default payment-intent.
   * With the default flow and event, records live in billing_records (BillingGuard); otherwise in guard_records (Guard).
   */
  flow?: FlowAdapter<R>;
  /** The team's events: a schema and a function from event to identity, spend and the flow's request; default UsageEvent. */
  event?: BillingEventDefinition<E, R>;
  /** An open store to share for a non-default flow or event (e.g. a `Guard`), not closed by the consumer. */
  guardStore?: GuardStore<never>;
  /** Embedded database directory when neither `databaseUrl` nor `pglite` is given; absent: in memory. */
  dataDir?: string;
  /** The guard's lease; default the delivery budget (Stripe worst case + processing + margin), twice that when messages may wait for a Stripe slot. */
  leaseMs?: number;
  /** Lease owner id; default host/pid/random. */
  owner?: string;
  /**
   * Stripe calls at a time (each with its claim just before it); default `maxConcurrentCalls`. Set below
   * `maxConcurrentCalls` (at least half of it), the other messages in flight record outcomes and settle while the
   * slots call Stripe, so the guard's round trips overlap Stripe's latency instead of adding to it. A message may
   * then wait for a slot up to one delivery budget, which the lock renewal must cover as well.
   */
  maxConcurrentStripeCalls?: number;
  /**
   * How long `close()` waits for in-flight messages to settle (a step frozen by a hook is not waited for); default
   * the delivery budget (twice it when messages may wait for a Stripe slot): a message in flight at SIGTERM settles
   * within it, and the platform's grace period (Container Apps' terminationGracePeriodSeconds) is set to cover it.
   */
  closeTimeoutMs?: number;
  /** Metrics and traces (runtime/telemetry); default: from the context's providers, else the global ones (a no-op without an SDK). */
  telemetry?: BillingTelemetry;
  /** Peek the queue before subscribing, throwing ConsumerStartError when it is missing or unreachable; default true. */
  checkQueueAtStart?: boolean;
  /** Called when Stripe refuses the key (401/403) and the consumer pauses intake: an alert hook. */
  onConfigurationFault?: (detail: string) => void;
  /** Probe backoff while paused on a refused key; default 30 s doubling to 5 min. */
  configurationFaultProbe?: { firstProbeDelayMs?: number; maxProbeDelayMs?: number };
}

const defaultStripeTimeoutMs = DEFAULT_STRIPE_BUDGET.timeoutMs;
const defaultStripeRetries = DEFAULT_STRIPE_BUDGET.maxNetworkRetries;

export async function startBillingConsumer<E = UsageEvent, R = PaymentIntentRequest>(options: BillingConsumerOptions<E, R>): Promise<RunningConsumer> {
  const log = options.log ?? ((line: string) => console.log(line));
  const maxConcurrentCalls = options.maxConcurrentCalls ?? 1;
  const stripeSlots = options.maxConcurrentStripeCalls ?? maxConcurrentCalls;
  for (const [name, value] of [["maxConcurrentCalls", maxConcurrentCalls], ["maxConcurrentStripeCalls", stripeSlots]] as const) {
    if (!Number.isSafeInteger(value) || value < 1) throw new ConfigurationError(`${name} must be a positive integer, got ${String(value)}`);
  }
  if (stripeSlots > maxConcurrentCalls || 2 * stripeSlots < maxConcurrentCalls) {
    // More messages than twice the slots could wait longer than one Stripe call for a slot, past what the lock covers.
    throw new ConfigurationError(
      `maxConcurrentStripeCalls (${stripeSlots}) must be between half of maxConcurrentCalls (${maxConcurrentCalls}) and all of it`,
    );
  }
  const pipelined = stripeSlots < maxConcurrentCalls;
  const stripeTimeoutMs = options.stripe.timeoutMs ?? options.tuning?.consumer.stripeTimeoutMs ?? defaultStripeTimeoutMs;
  const stripeRetries = options.stripe.maxNetworkRetries ?? options.tuning?.consumer.stripeMaxNetworkRetries ?? defaultStripeRetries;
  const flow = (options.flow ?? paymentIntentFlow) as FlowAdapter<unknown>;
  // One delivery budget per Stripe call the flow makes (an invoice: create, items, finalize, pay).
  const budget = flow.calls * deliveryBudgetMs({ stripe: { timeoutMs: stripeTimeoutMs, maxNetworkRetries: stripeRetries } });
  // A message waiting for a Stripe slot waits at most one delivery (FIFO, at most as many waiting as there are slots).
  const heldMs = pipelined ? 2 * budget : budget;
  // Without a tuning we cannot know the queue's lock, so renew for twice the delivery budget (what tuneQueue
  // asks for whenever one lock does not cover a delivery).
  const maxAutoLockRenewalDurationInMs =
    options.maxAutoLockRenewalDurationInMs ?? options.tuning?.consumer.maxAutoLockRenewalDurationInMs ?? Math.ceil((2 * budget) / 1000) * 1000;
  if (options.tuning?.lockDurationMs !== undefined) {
    const problems = coverageProblems(
      { stripe: { timeoutMs: stripeTimeoutMs, maxNetworkRetries: stripeRetries } },
      { lockDurationMs: options.tuning.lockDurationMs, maxAutoLockRenewalDurationInMs },
    );
    const lockCoversMs = Math.max(options.tuning.lockDurationMs, maxAutoLockRenewalDurationInMs);
    if (pipelined && lockCoversMs < heldMs) {
      problems.push(
        `with ${maxConcurrentCalls} messages in flight for ${stripeSlots} Stripe calls a message may be held ${heldMs} ms ` +
          `(a wait for a slot plus its own delivery) but the lock covers ${lockCoversMs} ms: set maxAutoLockRenewalDurationInMs to at least ${heldMs}`,
      );
    }
    if (problems.length > 0) throw new ConfigurationError(`consumer settings do not fit queue ${options.serviceBus.queueName}: ${problems.join("; ")}`);
  }
  const retryPolicy: RetryPolicy = { ...defaultRetryPolicy, ...options.retryPolicy, ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }) };
  for (const [name, value] of Object.entries(retryPolicy)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new ConfigurationError(`retry policy ${name} must be a positive integer, got ${String(value)}`);
  }
  if (retryPolicy.maxDelayMs < retryPolicy.baseDelayMs) {
    throw new ConfigurationError(`retry policy maxDelayMs (${retryPolicy.maxDelayMs}) must not be below baseDelayMs (${retryPolicy.baseDelayMs})`);
  }

  // A bad scope would fail every message; fail at start instead.
  try {
    stableKey({ scope: "check" }, { scope: options.scope ?? "billing" });
  } catch (error) {
    throw new ConfigurationError(`scope: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const expected = options.expectedPeriodTotalCents ?? options.periodCapCents;
  if (options.keyProvider && expected === undefined) {
    throw new ConfigurationError("a vault key provider needs expectedPeriodTotalCents (or periodCapCents) to size each period's key cap");
  }
  const keys: VaultKeyProvider = options.keyProvider ?? new EnvironmentKeyProvider({ apiKey: options.stripe.apiKey, warn: log });
  const apiBase = keys.apiBase ?? options.stripe.apiBase;
  const stripeClients = new Map<string, Stripe>();
  const stripeFor = (apiKey: string): Stripe => {
    let client = stripeClients.get(apiKey);
    if (!client) {
      client = createStripeClient({ apiKey, timeoutMs: stripeTimeoutMs, maxNetworkRetries: stripeRetries, ...(apiBase === undefined ? {} : { apiBase }) });
      stripeClients.set(apiKey, client);
    }
    return client;
  };

  // The default (UsageEvent, payment-intent) keeps billing_records, its reconciler and its group commit.
  const onBillingRecords = options.event === undefined && flow === paymentIntentFlow && options.guardStore === undefined;
  const connection = {
    ...(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl }),
    ...(options.databasePassword === undefined ? {} : { databasePassword: options.databasePassword }),
    ...(options.pglite === undefined ? {} : { pglite: options.pglite }),
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.periodCapCents === undefined ? {} : { periodCapCents: options.periodCapCents }),
    ...(options.periodCaps === undefined ? {} : { periodCaps: options.periodCaps }),
    // Claimed before it waits for a Stripe slot, a billing is held for the wait and the call.
    leaseMs: options.leaseMs ?? heldMs,
    // A connection per message in flight (and one for the batched completions): a delivery never queues for one.
    // The same number sizes the deployment's connection budget (max replicas), so it comes from the tuning room.
    poolSize: guardPoolSize(maxConcurrentCalls),
  };
  const sharedGuard = onBillingRecords ? options.guard : undefined;
  const ownGuard = onBillingRecords && !sharedGuard ? await BillingGuard.open(connection) : undefined;
  const guard: BillingGuardPort | undefined = sharedGuard ?? ownGuard;
  const ownStore = onBillingRecords || options.guardStore ? undefined : await Guard.open(connection);
  const store = options.guardStore ?? ownStore;
  const telemetry =
    options.telemetry ??
    createBillingTelemetry({
      ...(options.meterProvider === undefined ? {} : { meterProvider: options.meterProvider }),
      ...(options.tracerProvider === undefined ? {} : { tracerProvider: options.tracerProvider }),
    });
  const instrumentedGuard = guard === undefined ? undefined : telemetry.instrumentGuard(guard);
  const observed = ownGuard ?? (sharedGuard instanceof BillingGuard ? sharedGuard : undefined);
  const stopObserving = observed ? telemetry.observeGuard(() => observed.health()) : () => {};

  // A queue that is not there or not reachable is a configuration error at start (ConsumerStartError), not a log flood.
  if (options.checkQueueAtStart !== false) {
    try {
      await checkQueueReachable(options.serviceBus.connectionString, options.serviceBus.queueName);
    } catch (error) {
      if (ownGuard) await ownGuard.close();
      throw error;
    }
  }
  const client = connectServiceBus(options.serviceBus.connectionString);
  const receiver = client.createReceiver(options.serviceBus.queueName, { receiveMode: "peekLock", maxAutoLockRenewalDurationInMs });
  const sender = client.createSender(options.serviceBus.queueName);
  const queue = options.serviceBus.queueName;

  let stopped = false;
  /** In-flight messages; true while parked in a step hook (a simulated crash may never return from one). */
  const inFlight = new Map<ServiceBusReceivedMessage, { inHook: boolean }>();
  const handler = createBillingHandler({
    stripeSlot: telemetry.instrumentStripeSlot(pipelined ? pLimit(stripeSlots) : undefined),
    ...(instrumentedGuard === undefined ? {} : { guard: instrumentedGuard }),
    ...(store === undefined ? {} : { store: store as GuardStore<never> }),
    flow: flow as FlowAdapter<never>,
    ...(options.event === undefined ? {} : { event: options.event as unknown as BillingEventDefinition<never, never> }),
    ...(options.clock === undefined ? {} : { now: () => (options.clock as NonNullable<typeof options.clock>).now() }),
    keys,
    stripeFor,
    owner: options.owner ?? `${hostname()}/${process.pid}/${randomBytes(4).toString("hex")}`,
    expectedTotalCents: (period) => (typeof expected === "function" ? expected(period) : (expected ?? 0)),
    retryPolicy,
    log,
    isStopped: () => stopped,
    ...(options.scope === undefined ? {} : { scope: options.scope }),
    ...(options.hook === undefined ? {} : { hook: options.hook }),
    onHookWait: (message, waiting) => {
      const state = inFlight.get(message);
      if (state) state.inHook = waiting;
    },
  });

  const errorLog = throttledErrorLog(log);
  // Stripe refusing the key pauses intake instead of dead-lettering the backlog (configuration-fault.ts).
  const faults = configurationFaultGate({
    log,
    pause: () => bounded(subscription.close(), 5_000),
    resume: () => {
      if (!stopped) subscription = subscribe();
    },
    ...(options.stripe.apiKey ? { probe: stripeKeyProbe(stripeFor(options.stripe.apiKey)) } : {}),
    ...(options.onConfigurationFault === undefined ? {} : { onFault: options.onConfigurationFault }),
    ...options.configurationFaultProbe,
  });
  const settlingReceiver = faults.receiver(receiver);
  const settler = telemetry.instrumentSettler(settlingReceiver, queue);
  const scheduler = telemetry.instrumentScheduler(sender, queue);
  const subscribe = () => receiver.subscribe(
    {
      processMessage: async (message) => {
        if (faults.paused) {
          // Delivered as intake stopped: back to the queue untouched.
          await receiver.abandonMessage(message).catch(() => undefined);
          return;
        }
        const state = { inHook: false };
        inFlight.set(message, state);
        try {
          await telemetry.processMessage(message, queue, () => handler(message, settler, scheduler));
        } catch (error) {
          // The handler does not throw; if it ever did, swallowing beats the SDK's abandon.
          log(`billing handler failed unexpectedly: ${String(error)}`);
        } finally {
          inFlight.delete(message);
        }
      },
      processError: async ({ error, errorSource }) => {
        if (errorSource === "renewLock") telemetry.lockRenewalFailed(queue);
        errorLog(`service bus ${errorSource}: ${error instanceof Error ? error.message : String(error)}`);
      },
    },
    { autoCompleteMessages: false, maxConcurrentCalls },
  );
  let subscription = subscribe();

  let closing: Promise<void> | undefined;
  return {
    close: () => {
      closing ??= (async () => {
        stopped = true;
        stopObserving();
        faults.close();
        await bounded(subscription.close(), 5_000);
        const deadline = Date.now() + (options.closeTimeoutMs ?? heldMs);
        while (Date.now() < deadline && [...inFlight.values()].some((state) => !state.inHook)) await sleep(20);
        await bounded(receiver.close(), 5_000);
        await bounded(sender.close(), 5_000);
        await bounded(client.close(), 5_000);
        if (ownGuard) await bounded(ownGuard.close(), 5_000);
        else if (guard) await bounded(guard.flushCompletions(), 5_000);
        if (ownStore) await bounded(ownStore.close(), 5_000);
      })();
      return closing;
    },
  };
}

/** The consumer contract's entry point (the scaffold and the proving ground call this). */
export const startConsumer: StartConsumer = (context) => startBillingConsumer(context);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits for `promise`, at most `ms`; a close that hangs must not hang the caller. */
async function bounded(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
