// One contender, start to finish: a fresh Service Bus emulator, Stripe emulator and PGlite, the workload sent,
// the plan's faults armed, R replicas until the queue settles, the 25-hours-later phase, the operator's reconciler
// (generated consumer), then the judgement. Everything it starts, it stops.
import { ServiceBusClient } from "@azure/service-bus";
import Stripe from "stripe";
import { builtInFlows } from "../runtime/operator/index.js";
import { consumerQueueRights, type UsageEvent } from "../runtime/index.js";
import { type ConsumerStep } from "../runtime/handler/index.js";
import { deliveryBudgetMs } from "../tuning/index.js";
import { AdjustableClock, startServiceBusEmulator, startStripeEmulator, type StripeFaultRequest } from "../sandbox/index.js";
import { auditContenderAccount } from "./account-audit.js";
import { describeExpectedFailure, type Contender } from "./contenders.js";
import { createStripeCustomers } from "./customers.js";
import type { FreshDatabases } from "./fresh-databases.js";
import type { FaultPlan } from "./faults.js";
import { canonicalBody as canonical, deadLetteredEventIds, eventForCharge, measure, verdict } from "./metrics.js";
import { bodyTarget, flowShape, meterEventName } from "./flows.js";
import { deadLetters, recordedEvents } from "./observe.js";
import { resendUnrecorded, resubmitDeadLetters, sendAll, workloadMessages } from "./producer.js";
import { waitUntilSettled } from "./queue-watch.js";
import { seededRandom } from "./random.js";
import { ReplicaFleet } from "./replica-fleet.js";
import type { ContenderResult } from "./results.js";
import type { HarnessSettings } from "./settings.js";
import { injectStripeFaults } from "./stripe-fault-injection.js";
import { ContenderTelemetry } from "./telemetry-reader.js";
import type { Workload, WorkloadEvent } from "./workload.js";

export interface ContenderRunOptions {
  contender: Contender;
  workload: Workload;
  plan: FaultPlan;
  replicas: number;
  settings: HarnessSettings;
  databases: FreshDatabases;
  /** Share of the contender's work done so far, 0..1 (for a progress bar). */
  onProgress?(done: number): void;
  log?(line: string): void;
}

const queue = "billing";
/** The SAS rule every replica connects with: exactly the rights BillingQueue deploys for a consumer. */
const consumerRule = "consumer";
/** A stop that takes longer is reported and left behind, so one stuck handle cannot hang the whole run. */
const cleanupBoundMs = 10_000;
const pendingLogEveryMs = 5_000;
/** Obviously fake: the sandbox takes any restricted test key. */
const sandboxKey = "rk_test_sandbox";

export async function runContender(options: ContenderRunOptions): Promise<ContenderResult> {
  const { contender, workload, plan, settings, replicas } = options;
  const log = options.log ?? (() => {});
  const clock = new AdjustableClock();
  const setupStarted = Date.now();
  const stops: [string, () => Promise<void>][] = [];
  let fleet: ReplicaFleet | undefined;
  try {
    const servicebus = await startServiceBusEmulator({
      queues: {
        [queue]: {
          lockDurationMs: settings.lockDurationMs,
          maxDeliveryCount: settings.maxDeliveryCount,
          duplicateDetectionWindowMs: settings.duplicateDetectionWindowMs,
          deadLetteringOnMessageExpiration: true,
        },
      },
      authorizationRules: { [consumerRule]: { queue, rights: consumerQueueRights.sasRights } },
      port: 0,
    });
    stops.push(["Service Bus emulator", () => servicebus.stop()]);
    const stripe = await startStripeEmulator({ clock });
    stops.push(["Stripe emulator", () => stripe.stop()]);
    // The database comes last in the setup: in a worker thread its template may still be on its way from the parent.
    const database = options.databases.create();
    database.catch(() => {}); // awaited below; observed now so a failure meanwhile is not an unhandled rejection
    stops.push(["database", async () => (await database).close()]);
    const client = new ServiceBusClient(servicebus.connectionString);
    stops.push(["harness client", () => client.close()]);
    // The contender's own metrics (consumers on chargeguard's runtime report through the context's meter provider).
    const telemetry = new ContenderTelemetry();
    stops.push(["telemetry", () => telemetry.shutdown()]);

    const operator = new Stripe(sandboxKey, { ...stripe.stripeConfig, maxNetworkRetries: 2 });
    // The contender's flow: its message bodies, its money-moving requests, where its ground truth is read.
    const shape = flowShape(contender.flow);
    const decliningCustomers = workload.events.filter((event) => event.kind === "decline").map((event) => event.stripeCustomerId);
    const directory = await createStripeCustomers(
      operator,
      workload.stripeCustomerIds,
      shape.defaultSource ? { defaultCards: { decliningTwins: decliningCustomers } } : {},
    );
    if (contender.flow === "meter-event") {
      await operator.billing.meters.create({ display_name: "Billed usage", event_name: meterEventName, default_aggregation: { formula: "sum" } });
    }
    // Meter events must be stamped within Stripe's past 35 days: an hour before the run, whenever it is sent.
    const timestampSeconds = Math.floor(clock.now() / 1000) - 3_600;
    const workloadBodies = new Map<string, unknown>();
    const bodyOf = (event: WorkloadEvent): unknown => {
      const body = shape.body(event, timestampSeconds);
      const translated =
        shape.defaultSource && event.kind === "decline" && body !== null && typeof body === "object"
          ? { ...body, stripeCustomerId: directory.toStripeDeclining(event.stripeCustomerId) }
          : directory.bodyToStripe(body);
      workloadBodies.set(canonical(translated), event.body);
      return translated;
    };
    const workloadBody = contender.flow === "payment-intent" ? undefined : (body: unknown) => workloadBodies.get(canonical(decoded(body)));
    const eventOf = (stripeCustomer: unknown, amount: unknown): WorkloadEvent | undefined => {
      const customer = typeof stripeCustomer === "string" ? directory.toWorkload(stripeCustomer) : undefined;
      const cents = typeof amount === "string" || typeof amount === "number" ? Number(amount) : NaN;
      return customer === undefined || !Number.isInteger(cents) ? undefined : eventForCharge(workload, customer, cents);
    };

    // Faults. A slow call's lock is made to lapse mid-call (as when renewal meets ServerBusy), and the harness
    // waits for slow calls still running before it calls a phase settled.
    let slowCallsUntil = 0;
    injectStripeFaults({
      faults: stripe.faults,
      plan,
      settings,
      moneyPaths: shape.moneyPaths,
      ...(shape.observePaths ? { observePaths: shape.observePaths } : {}),
      eventOf: (request: StripeFaultRequest) => {
        const target = shape.requestTarget(request);
        return eventOf(target.customer, target.amount);
      },
      onSlowCall: (event) => {
        slowCallsUntil = Math.max(slowCallsUntil, Date.now() + settings.slowStripeMs + 500);
        setTimeout(() => {
          servicebus.faults.expireLock(queue, (message) => {
            const target = bodyTarget(message.body);
            return eventOf(target.customer, target.amount)?.id === event.id;
          });
        }, Math.min(200, settings.slowStripeMs / 4)).unref();
      },
    });
    if (plan.renewBusyRate > 0) {
      const random = seededRandom(workload.seed).fork("renew-busy");
      servicebus.faults.inject({ operation: "renewLock", action: "serverBusy", queue, when: () => random.chance(plan.renewBusyRate) });
    }
    const killedAt = new Set<string>();
    // A hook gets the consumer's parsed event, in its flow's shape.
    const hookEvent = (parsed: unknown) => {
      const target = bodyTarget(parsed);
      return eventOf(target.customer, target.amount);
    };
    const shouldKill = (step: ConsumerStep, usage: UsageEvent): boolean => {
      const event = hookEvent(usage);
      if (!event || plan.kills.get(event.id) !== step || killedAt.has(event.id)) return false;
      killedAt.add(event.id);
      return true;
    };
    const scaledInAt = new Set<string>();
    const shouldScaleIn = (_step: ConsumerStep, usage: UsageEvent): boolean => {
      const event = hookEvent(usage);
      if (!event || !plan.scaleIns.has(event.id) || scaledInAt.has(event.id)) return false;
      scaledInAt.add(event.id);
      return true;
    };

    // A replacement replica comes up after the restart delay, and by then the dead replica's guard leases have lapsed
    // (the consumer sizes them as one delivery budget per Stripe call its flow may make: 23 for an invoice).
    const contenderContext = contender.contextFor?.(settings);
    const restartAdvanceMs = Math.max(
      settings.restartDelayMs,
      contenderContext?.leaseMs ??
        (builtInFlows[contender.flow]?.calls ?? 1) * deliveryBudgetMs({ stripe: { timeoutMs: settings.stripeTimeoutMs, maxNetworkRetries: settings.stripeMaxNetworkRetries } }),
    );
    const sender = client.createSender(queue);
    const initial = workloadMessages(workload, directory, contender.flow === "payment-intent" ? undefined : bodyOf);
    await sendAll(sender, initial);
    const pglite = await database;

    log(`${contender.name}: ready in ${Date.now() - setupStarted} ms (${workload.stripeCustomerIds.length} customers, ${initial.length} messages sent)`);
    const { startConsumer } = await contender.load();
    fleet = new ReplicaFleet({
      start: startConsumer,
      context: {
        serviceBus: { connectionString: servicebus.connectionStringFor(consumerRule), queueName: queue },
        stripe: {
          apiKey: sandboxKey,
          apiBase: stripe.apiBase,
          timeoutMs: settings.stripeTimeoutMs,
          maxNetworkRetries: settings.stripeMaxNetworkRetries,
        },
        pglite,
        clock,
        ...(plan.periodCapCents !== undefined ? { periodCapCents: plan.periodCapCents } : {}),
        maxConcurrentCalls: settings.maxConcurrentCalls,
        retryPolicy: settings.retryPolicy,
        ...contenderContext,
        meterProvider: telemetry.meterProvider,
        log: (line) => log(`${contender.name}: ${line}`),
      },
      replicas,
      shouldKill,
      shouldScaleIn,
      gracePeriodMs: settings.scaleInGracePeriodMs,
      closeBoundMs: settings.killCloseBoundMs,
      onKill: () => clock.advance(restartAdvanceMs),
      log: (line) => log(`${contender.name}: ${line}`),
    });

    const started = Date.now();
    const deadline = started + settings.contenderTimeoutMs;
    let progress = 0;
    const report = (done: number) => {
      progress = Math.max(progress, Math.min(1, done));
      options.onProgress?.(progress);
    };
    let lastPendingLog = Date.now();
    const twoPhases = plan.resubmitDeadLetters || plan.resendUnrecorded;
    const settle = (phaseStart: number, phaseShare: number, phaseMessages: number) =>
      waitUntilSettled({
        counts: () => servicebus.counts(queue),
        busyOutsideQueue: () => Date.now() < slowCallsUntil || fleet?.busy === true,
        quietMs: settings.quietMs,
        deadline,
        onPending: (pending) => {
          report(phaseStart + phaseShare * (1 - Math.min(1, pending / Math.max(1, phaseMessages))));
          if (Date.now() - lastPendingLog >= pendingLogEveryMs) {
            lastPendingLog = Date.now();
            log(`${contender.name}: ${pending} message(s) active, locked or scheduled after ${((Date.now() - started) / 1000).toFixed(0)} s`);
          }
        },
      });

    let error: string | undefined;
    await fleet.start();
    let outcome = await settle(0, twoPhases ? 0.9 : 1, initial.length);
    if (outcome === "settled" && twoPhases) {
      clock.advance(settings.keyWindowJumpMs);
      const ids = seededRandom(workload.seed).fork(`late-ids:${contender.name}`);
      const newMessageId = () => `late-${ids.int(0, 2 ** 30).toString(36)}-${ids.int(0, 2 ** 30).toString(36)}`;
      let resent = 0;
      if (plan.resubmitDeadLetters) {
        const toMove = new Set(servicebus.inspect(queue).deadLettered.map((message) => message.sequenceNumber));
        resent += await resubmitDeadLetters({ client, queue, toMove, newMessageId });
      }
      if (plan.resendUnrecorded) {
        const { recorded } = await recordedEvents(pglite, workload, contender.flow);
        resent += await resendUnrecorded({ sender, workload, recorded, bodyOf: (event) => (contender.flow === "payment-intent" ? directory.bodyToStripe(event.body) : bodyOf(event)), newMessageId });
      }
      log(`${contender.name}: ${resent} message(s) sent again 25 h later`);
      outcome = await settle(0.9, 0.1, resent);
    }
    if (outcome === "timed-out") error = `did not settle within ${Math.round(settings.contenderTimeoutMs / 1000)} s`;
    await fleet.stop();
    if (fleet.startErrors.length > 0) error = [error, `replica start failed: ${fleet.startErrors[0]}`].filter(Boolean).join("; ");
    await contender.afterRun?.({
      database: pglite,
      clock,
      stripe: { apiKey: sandboxKey, apiBase: stripe.apiBase },
      ...(plan.periodCapCents !== undefined ? { periodCapCents: plan.periodCapCents } : {}),
      meterProvider: telemetry.meterProvider,
      log: (line) => log(`${contender.name}: ${line}`),
    });
    report(1);

    const wallMs = Date.now() - started;
    const snapshot = servicebus.inspect(queue);
    const metrics = measure(workload, {
      attempts: shape.attempts(stripe.ledger, directory),
      paymentIntents: shape.objects(stripe.ledger),
      deadLetters: deadLetters(snapshot, directory, workloadBody),
      deliveries: servicebus.counts(queue).deliveries,
      recordedDeclines: (await recordedEvents(pglite, workload, contender.flow)).declined,
      ...(plan.periodCapCents !== undefined ? { periodCapCents: plan.periodCapCents } : {}),
      wallMs,
    });
    const accountAudit = await auditContenderAccount({ apiKey: sandboxKey, apiBase: stripe.apiBase }, contender.flow, metrics.duplicateCharges);
    const scaleIns = plan.scaleIns.size > 0 ? { ...fleet.scaleIns } : undefined;
    const scaledIn = scaleIns ? `, ${scaleIns.drained} scaled-in replica(s) drained and ${scaleIns.killed} SIGKILLed` : "";
    log(`${contender.name}: ${fleet.kills} replica(s) killed${scaledIn}; ${verdict(metrics)}`);
    const dlq = deadLetteredEventIds(workload, deadLetters(snapshot, directory, workloadBody));
    const missing = workload.events.filter((event) => event.expected === "dead-lettered" && !dlq.has(event.id));
    if (missing.length > 0) log(`${contender.name}: malformed events not dead-lettered: ${missing.map((event) => `${event.id} (${event.malformation})`).join(", ")}`);
    return {
      name: contender.name,
      kind: contender.kind,
      flow: contender.flow,
      ...(contender.expectedFailure ? { expectedFailure: describeExpectedFailure(contender.expectedFailure) } : {}),
      metrics,
      telemetry: await telemetry.summary(),
      ...(scaleIns ? { scaleIns } : {}),
      ...(accountAudit ? { accountAudit } : {}),
      verdict: verdict(metrics),
      ...(error ? { error } : {}),
    };
  } finally {
    await fleet?.stop();
    for (const [label, stop] of stops.reverse()) {
      const outcome = await within(stop(), cleanupBoundMs).catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
      if (outcome !== "done") log(`${contender.name}: cleanup of the ${label}: ${outcome}`);
    }
  }
}

async function within(work: Promise<void>, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`still running after ${ms} ms`), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work.then(() => "done"), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A body as the queue hands it back (bytes decoded), for matching against what was sent. */
function decoded(body: unknown): unknown {
  return Buffer.isBuffer(body) || body instanceof Uint8Array ? Buffer.from(body).toString("utf8") : body;
}

