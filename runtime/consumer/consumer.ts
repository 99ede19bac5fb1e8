// The billing consumer: a Service Bus `subscribe` loop running the billing flow per message, with the settings
// that must agree (lock renewal deadline, Stripe timeout and retries, guard lease) taken from one queue tuning.
// Each step of starting and stopping it lives in runtime/consumer/.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import pLimit from "p-limit";
import type { BillingEventDefinition } from "../flows/billing-event.js";
import type { PaymentIntentRequest } from "../stripe/payment-intent-params.js";
import type { UsageEvent } from "../event/usage-event.js";
import { createBillingHandler, type BillingHandler, type DeliveryPorts } from "../handler/billing-handler.js";
import type { FlowAdapter } from "../flows/flow-adapter.js";
import type { GuardStore } from "../guard/guard-store.js";
import type { ConsumerContext, RunningConsumer, StartConsumer } from "./consumer-contract.js";
import { bounded } from "./bounded.js";
import type { BillingConsumerOptions } from "./consumer-options.js";
import { consumerSettings, type AnyConsumerOptions, type ResolvedConsumerSettings } from "./consumer-settings.js";
import { openGuardStores } from "./guard-stores.js";
import { InFlight } from "./in-flight.js";
import { startMessageIntake } from "./message-intake.js";
import { receiveHeartbeat } from "./receive-heartbeat.js";
import { stripeClients, type StripeClients } from "./stripe-clients.js";
import type { StripeGovernance } from "../resilience/governed-stripe-call.js";
import { startResilience } from "./consumer-resilience.js";
import { connectServiceBus } from "../servicebus/servicebus-connection.js";
import { checkQueueReachable } from "./servicebus-preflight.js";
import { checkStripeReachable, stripeCheckWanted } from "./stripe-preflight.js";
import { createBillingTelemetry } from "../telemetry/billing-telemetry.js";
import { redactSecrets } from "../core/text/redact.js";
import { terminalSafe } from "../core/text/terminal-safe.js";

export type { BillingConsumerOptions } from "./consumer-options.js";

export async function startBillingConsumer<E = UsageEvent, R = PaymentIntentRequest>(options: BillingConsumerOptions<E, R>): Promise<RunningConsumer> {
  const generic: AnyConsumerOptions = options;
  const write = options.log ?? ((line: string) => console.log(line));
  // Every line the consumer logs is read by an operator: secrets redacted, control characters escaped (a message's
  // bytes reach some lines, e.g. a receiver error quoting a field).
  const log = (line: string) => write(terminalSafe(redactSecrets(line)));
  const settings = consumerSettings(generic);
  const stripe = stripeClients(generic, settings, log);
  const stores = await openGuardStores(generic, settings, log);
  const owner = options.owner ?? `${hostname()}/${process.pid}/${randomBytes(4).toString("hex")}`;
  // Degraded dependencies (README): the Stripe budget's governor, a breaker per dependency, the guard's calls watched.
  const resilience = await startResilience({ options: generic, settings, stripe, owner, log });
  const telemetry = options.telemetry ?? createBillingTelemetry(providersOf(options));
  const observed = stores.observed;
  const stopObserving = observed ? telemetry.observeGuard(() => observed.health()) : () => {};
  // A queue or a Stripe that is not there or not reachable is a configuration error at start (ConsumerStartError),
  // not a log flood or a first message's silent minute of retries.
  await checkAtStart(options, stripe.keys.apiBase).catch(async (error: unknown) => {
    await resilience.close();
    await stores.closeOwn();
    throw error;
  });
  const client = await connectServiceBus(options.serviceBus.connectionString);
  const receiver = client.createReceiver(options.serviceBus.queueName, { receiveMode: "peekLock", maxAutoLockRenewalDurationInMs: settings.maxAutoLockRenewalDurationInMs });
  const sender = client.createSender(options.serviceBus.queueName);
  let stopped = false;
  const inFlight = new InFlight();
  // The handler's ports as they are; the telemetry instruments them per delivery (message-intake.ts).
  const ports: HandlerPorts = {
    ...(settings.pipelined ? { stripeSlot: pLimit(settings.stripeSlots) } : {}),
    store: resilience.watchStore(stores.store) as GuardStore<never>,
  };
  const governed = { ...stripe, keys: resilience.watchKeys(stripe.keys) };
  const handler = billingHandlerFor(generic, settings, { stripe: governed, ports, log, inFlight, isStopped: () => stopped, owner, governance: resilience.governance });
  // The receive loop's liveness (the container's /live): its stall threshold comes from the queue's lock (tuning).
  const heartbeat = receiveHeartbeat(
    {
      heldMs: settings.heldMs,
      ...(options.tuning?.lockDurationMs === undefined ? {} : { lockDurationMs: options.tuning.lockDurationMs }),
      ...(options.receiveProbeEveryMs === undefined ? {} : { probeEveryMs: options.receiveProbeEveryMs }),
    },
    () => inFlight.oldestSince(),
  );
  const intake = startMessageIntake({ options: generic, settings, log, receiver, sender, handler, ports, telemetry, stripe, inFlight, heartbeat, isStopped: () => stopped });
  // A breaker that opens stops intake (the backlog stays on the queue); the last one to close resumes it.
  resilience.onBreaker = (dependency, state) => {
    if (state === "open") void intake.pause.hold(dependency);
    else intake.pause.release(dependency);
  };

  let closing: Promise<void> | undefined;
  return {
    // Draining after close() receives nothing by design: live until the platform's grace period ends it.
    liveness: () => {
      const { reason: _stalled, ...state } = heartbeat.liveness();
      return stopped ? { ...state, live: true } : heartbeat.liveness();
    },
    close: () => {
      closing ??= (async () => {
        stopped = true;
        stopObserving();
        await intake.stop();
        await inFlight.settled(Date.now() + (options.closeTimeoutMs ?? settings.heldMs));
        await resilience.close();
        for (const closable of [receiver, sender, client]) await bounded(closable.close(), 5_000);
        await stores.close((closing) => bounded(closing, 5_000));
      })();
      return closing;
    },
  };
}

/**
 * The queue's peek and the connect to Stripe's origin (the vault's proxy with vault keys), side by side; when both
 * fail, the queue's error speaks (it is checked first in the run contract).
 */
async function checkAtStart(options: Pick<BillingConsumerOptions, "serviceBus" | "stripe" | "checkQueueAtStart" | "checkStripeAtStart">, vaultApiBase: string | undefined): Promise<void> {
  const origin = vaultApiBase ?? options.stripe.apiBase ?? "https://api.stripe.com";
  const setting =
    vaultApiBase !== undefined ? "KEYBRAKE_URL (the vault's proxy to Stripe)" : options.stripe.apiBase === undefined ? "STRIPE_API_BASE (absent: https://api.stripe.com)" : "STRIPE_API_BASE";
  const results = await Promise.allSettled([
    options.checkQueueAtStart === false ? undefined : checkQueueReachable(options.serviceBus.connectionString, options.serviceBus.queueName),
    stripeCheckWanted(options.checkStripeAtStart) ? checkStripeReachable(origin, setting) : undefined,
  ]);
  for (const result of results) if (result.status === "rejected") throw result.reason;
}

/** The consumer contract's entry point (the scaffold and the proving ground call this). */
export const startConsumer: StartConsumer = (context) => startBillingConsumer(context);

function providersOf(options: ConsumerContext): Parameters<typeof createBillingTelemetry>[0] {
  return {
    ...(options.meterProvider === undefined ? {} : { meterProvider: options.meterProvider }),
    ...(options.tracerProvider === undefined ? {} : { tracerProvider: options.tracerProvider }),
  };
}

/** The ports every delivery runs through: the guard's store always, a Stripe slot when pipelined. */
type HandlerPorts = DeliveryPorts & { store: GuardStore<never> };

interface HandlerParts {
  stripe: StripeClients;
  owner: string;
  governance: StripeGovernance;
  ports: HandlerPorts;
  log: (line: string) => void;
  inFlight: InFlight;
  isStopped: () => boolean;
}

/** The billing handler on the consumer's stores, Stripe clients and slots (instrumented per delivery by the intake). */
function billingHandlerFor(options: AnyConsumerOptions, settings: ResolvedConsumerSettings, parts: HandlerParts): BillingHandler {
  const expected = options.expectedPeriodTotalCents ?? options.periodCapCents;
  const clock = options.clock;
  return createBillingHandler({
    ...parts.ports,
    flow: settings.flow as FlowAdapter<never>,
    ...(options.event === undefined ? {} : { event: options.event as BillingEventDefinition<never, never> }),
    ...(clock === undefined ? {} : { now: () => clock.now() }),
    keys: parts.stripe.keys,
    stripeFor: parts.stripe.stripeFor,
    owner: parts.owner,
    stripeGovernance: parts.governance,
    expectedTotalCents: (period) => (typeof expected === "function" ? expected(period) : (expected ?? 0)),
    retryPolicy: settings.retryPolicy,
    log: parts.log,
    isStopped: parts.isStopped,
    ...(options.scope === undefined ? {} : { scope: options.scope }),
    ...(options.hook === undefined ? {} : { hook: options.hook }),
    onHookWait: parts.inFlight.hookWait,
  });
}
