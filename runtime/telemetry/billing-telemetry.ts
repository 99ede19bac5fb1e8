// The billing consumer's telemetry through @opentelemetry/api only: a no-op until the application registers an SDK
// (or passes providers). It wraps what the billing flow already goes through (the guard port, the Stripe slot, the
// receiver's settlements, the retry scheduler) instead of living inside the flow, so the flow's code stays as it is.
// Each message runs in a scope (AsyncLocalStorage, independent of any OpenTelemetry context manager) that ties the
// guard's answers, the Stripe call and the settlement back to the delivery they belong to.
import { AsyncLocalStorage } from "node:async_hooks";
import {
  context,
  createNoopMeter,
  metrics,
  ProxyTracerProvider,
  trace,
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type Context,
  type Meter,
  type MeterProvider,
  type Span,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import type { BillingGuardPort, MessageSettler, RetryScheduler } from "../billing-handler.js";
import type { StripeCallObserver, StripeOperation } from "../flows/stripe-call.js";
import { leftOnQueue } from "../configuration-fault.js";
import type { GuardStore, StoreClaim, StoreLease } from "../guard/guard-store.js";
import type { ClaimResult, Lease } from "../guard/types.js";
import type { GuardHealth } from "../guard/health.js";
import { attemptOf } from "../retry-chain.js";
import { deliverySource } from "./delivery-source.js";
import { createInstruments, type Instruments } from "./instruments.js";
import {
  attributeNames as attr,
  deadLetterReasons,
  meterName,
  type BillingOutcomeName,
  type DuplicateSource,
  type GuardOperation,
  type PreventedBy,
} from "./metric-names.js";
import { producerLinks } from "./producer-link.js";
import { errorType, messaging, semanticConventionsSchemaUrl, serviceBusSystem } from "./semantic-conventions.js";

export interface BillingTelemetryOptions {
  /** Default: the global one (`metrics.getMeterProvider()` when the telemetry is created: register the SDK first). */
  meterProvider?: MeterProvider;
  /** Default: the global one. */
  tracerProvider?: TracerProvider;
}

/** Runs a Stripe call in a slot (billing-handler's `stripeSlot`). */
export type StripeSlot = <T>(work: () => Promise<T>) => Promise<T>;

/** What one delivery did, gathered while its flow runs. */
interface DeliveryScope {
  /** The telemetry whose delivery this is: another consumer's telemetry in the same process does not see it. */
  readonly owner: BillingTelemetry;
  readonly queue: string;
  readonly source: DuplicateSource;
  readonly context: Context;
  claim?: ClaimResult["status"];
  /** A record turned charged or declined in this delivery (counted then), or was found so already (`*-noop`). */
  recorded?: "charged" | "declined" | "charged-noop" | "declined-noop";
  deadLetterReason?: string;
  retryScheduled?: boolean;
  /** Stripe answered one of this delivery's calls from its idempotency cache (counted once per delivery). */
  stripeReplayed?: boolean;
  settled?: boolean;
}

/**
 * One storage for every BillingTelemetry in the process: Node keeps each AsyncLocalStorage that was ever used in a
 * list it walks for every promise created, so one per consumer makes a process that starts many consumers (replicas
 * restarted in one process, as the proving ground does) slower with each one.
 */
const deliveryScopes = new AsyncLocalStorage<DeliveryScope>();

export class BillingTelemetry {
  readonly #tracer: Tracer;
  readonly #instruments: Instruments;
  /** What a lease's billing would charge: counted when its record turns charged (in a delivery or in the reconciler). */
  readonly #charges = new WeakMap<Lease | StoreLease, { amountCents: number; currency: string }>();

  /**
   * False when neither a meter provider nor a tracer provider is registered (or given): then every method hands the
   * consumer's own parts back unwrapped and runs no scope, so a consumer without telemetry pays nothing for it (on
   * Node 20 and 22 an AsyncLocalStorage in use slows every promise of the process, the guard's database calls too).
   */
  readonly enabled: boolean;

  constructor(options: BillingTelemetryOptions = {}) {
    const meterProvider = options.meterProvider ?? metrics.getMeterProvider();
    const tracerProvider = options.tracerProvider ?? trace.getTracerProvider();
    const meter = meterProvider.getMeter(meterName, undefined, { schemaUrl: semanticConventionsSchemaUrl });
    this.#instruments = createInstruments(meter);
    this.#tracer = tracerProvider.getTracer(meterName, undefined, { schemaUrl: semanticConventionsSchemaUrl });
    this.enabled = !(isNoopMeter(meter) && isNoopTracerProvider(tracerProvider));
  }

  /** Runs one delivery's flow inside its process span and scope; counts its outcome when it ends. */
  processMessage(message: ServiceBusReceivedMessage, queue: string, work: () => Promise<void>): Promise<void> {
    return this.enabled ? this.#process(message, queue, work) : work();
  }

  async #process(message: ServiceBusReceivedMessage, queue: string, work: () => Promise<void>): Promise<void> {
    const source = deliverySource(message);
    const parent = context.active();
    const span = this.#tracer.startSpan(
      `process ${queue}`,
      {
        kind: SpanKind.CONSUMER,
        links: producerLinks(message),
        attributes: {
          [messaging.system]: serviceBusSystem,
          [messaging.operationName]: "process",
          [messaging.operationType]: "process",
          [messaging.destinationName]: queue,
          ...(message.messageId === undefined ? {} : { [messaging.messageId]: String(message.messageId) }),
          [messaging.deliveryCount]: message.deliveryCount ?? 0,
          [attr.attempt]: attemptOf(message.applicationProperties),
          [attr.source]: source,
        },
      },
      parent,
    );
    const scope: DeliveryScope = { owner: this, queue, source, context: trace.setSpan(parent, span) };
    const messagingAttributes = this.#processAttributes(queue);
    this.#instruments.consumedMessages.add(1, messagingAttributes);
    const started = performance.now();
    let failure: unknown;
    try {
      await deliveryScopes.run(scope, () => context.with(scope.context, work));
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      const outcome = outcomeOf(scope);
      if (outcome !== undefined && scope.recorded !== "charged" && scope.recorded !== "declined") {
        this.#instruments.outcomes.add(1, { [attr.outcome]: outcome });
      }
      if (outcome !== undefined) span.setAttribute(attr.outcome, outcome);
      const failed = failure === undefined ? failedOutcome(outcome) : errorTypeOf(failure);
      if (failed !== undefined) {
        span.setAttribute(errorType, failed);
        span.setStatus({ code: SpanStatusCode.ERROR, message: failed });
      }
      span.end();
      this.#instruments.processDuration.record(
        (performance.now() - started) / 1000,
        failed === undefined ? messagingAttributes : { ...messagingAttributes, [errorType]: failed },
      );
    }
  }

  /**
   * Attribute sets that do not change per message, made once: a delivery records several metrics and spans, and
   * building their attributes anew for each was a measurable share of what telemetry adds (bench:guard).
   */
  readonly #constantAttributes = new Map<string, Attributes>();

  #constant(key: string, make: () => Attributes): Attributes {
    let attributes = this.#constantAttributes.get(key);
    if (attributes === undefined) this.#constantAttributes.set(key, (attributes = Object.freeze(make())));
    return attributes;
  }

  #processAttributes(queue: string): Attributes {
    return this.#constant(`process ${queue}`, () => ({ [messaging.system]: serviceBusSystem, [messaging.operationName]: "process", [messaging.destinationName]: queue }));
  }

  /** The delivery this code runs for, if it is one of this telemetry's. */
  #scope(): DeliveryScope | undefined {
    const scope = deliveryScopes.getStore();
    return scope?.owner === this ? scope : undefined;
  }

  /** The guard port, timed and traced; its answers feed the outcomes and the duplicates prevented. */
  instrumentGuard(guard: BillingGuardPort): BillingGuardPort {
    if (!this.enabled) return guard;
    return {
      claim: (input, owner) =>
        this.#guardOperation("claim", async () => {
          const result = await guard.claim(input, owner);
          this.#claimed(result, { amountCents: input.amountCents, currency: input.currency });
          return result;
        }),
      markCharged: (lease, outcome) =>
        this.#guardOperation("mark_charged", async () => {
          const turned = await guard.markCharged(lease, outcome);
          this.#recorded("charged", turned, this.#charges.get(lease));
          return turned;
        }),
      markDeclined: (lease, outcome) =>
        this.#guardOperation("mark_declined", async () => {
          const turned = await guard.markDeclined(lease, outcome);
          this.#recorded("declined", turned, undefined);
          return turned;
        }),
      releaseLease: (lease) => this.#guardOperation("release_lease", () => guard.releaseLease(lease)),
      markCompletedLater: (key) => guard.markCompletedLater(key),
      flushCompletions: () => guard.flushCompletions(),
    };
  }

  /**
   * A guard_records store (any flow but the default one, or the team's own event): timed and traced like the billing
   * guard, its answers feeding the same outcomes, charged amounts and duplicates prevented.
   */
  instrumentStore<L extends StoreLease>(store: GuardStore<L>): GuardStore<L> {
    if (!this.enabled) return store;
    return {
      claim: (request) =>
        this.#guardOperation("claim", async () => {
          const claim = await store.claim(request);
          this.#storeClaimed(claim, request.spend);
          return claim;
        }),
      saveStep: (lease, step, objectId) => this.#guardOperation("save_step", () => store.saveStep(lease, step, objectId)),
      markDone: (lease, outcome) =>
        this.#guardOperation("mark_charged", async () => {
          const turned = await store.markDone(lease, outcome);
          this.#recorded("charged", turned, this.#charges.get(lease));
          return turned;
        }),
      markDeclined: (lease, outcome) =>
        this.#guardOperation("mark_declined", async () => {
          const turned = await store.markDeclined(lease, outcome);
          this.#recorded("declined", turned, undefined);
          return turned;
        }),
      release: (lease) => this.#guardOperation("release_lease", () => store.release(lease)),
    };
  }

  /**
   * The flow's Stripe work in its slot, back in the delivery's scope (a slot queue runs it from another context).
   * Its calls are traced one by one (`observeStripeCall`), inside the slot: the wait for a slot is not Stripe's time.
   * A flow that reports no calls but says its result was `replayed` still counts the duplicate Stripe prevented.
   */
  instrumentStripeSlot(slot?: StripeSlot): StripeSlot {
    if (!this.enabled) return slot ?? ((work) => work());
    if (!slot) return (work) => this.#stripeWork(this.#scope(), work);
    return <T>(work: () => Promise<T>): Promise<T> => {
      const scope = this.#scope();
      return slot(() => (scope ? deliveryScopes.run(scope, () => this.#stripeWork(scope, work)) : this.#stripeWork(undefined, work)));
    };
  }

  /** One Stripe call, named for its operation (flows/stripe-call.ts): a CLIENT span, its duration, a replay. */
  readonly observeStripeCall: StripeCallObserver = (operation, call) => (this.enabled ? this.#stripeCall(this.#scope(), operation, call) : call());

  /** The receiver's settlements as CLIENT spans; dead letters counted by reason. */
  instrumentSettler(receiver: MessageSettler, queue: string): MessageSettler {
    if (!this.enabled) return receiver;
    return {
      completeMessage: (message) => this.#settlement("complete", queue, () => receiver.completeMessage(message)),
      deadLetterMessage: (message, options) => {
        const reason = boundedReason(options?.deadLetterReason);
        const scope = this.#scope();
        if (scope) scope.deadLetterReason = reason;
        return this.#settlement("dead_letter", queue, async () => {
          await receiver.deadLetterMessage(message, options);
          // A configuration fault gate puts the message back and pauses: no dead letter to count.
          if (!leftOnQueue(message)) this.#instruments.deadLetters.add(1, { [attr.deadLetterReason]: reason, [messaging.destinationName]: queue });
        });
      },
    };
  }

  /** The retry scheduler: each scheduled retry counted, with the outcome that asked for it (busy or unknown). */
  instrumentScheduler(sender: RetryScheduler, queue: string): RetryScheduler {
    if (!this.enabled) return sender;
    const scheduleMessages: RetryScheduler["scheduleMessages"] = async (messages, scheduledEnqueueTimeUtc, options) => {
      const scope = this.#scope();
      if (scope) scope.retryScheduled = true;
      const outcome: BillingOutcomeName = scope?.claim === "busy" ? "busy" : "unknown";
      const sequenceNumbers = await this.#span(
        `schedule ${queue}`,
        SpanKind.PRODUCER,
        { [messaging.system]: serviceBusSystem, [messaging.operationName]: "schedule", [messaging.operationType]: "send", [messaging.destinationName]: queue },
        scope,
        () => sender.scheduleMessages(messages, scheduledEnqueueTimeUtc, options),
      );
      this.#instruments.retriesScheduled.add(Array.isArray(messages) ? messages.length : 1, {
        [attr.outcome]: outcome,
        [messaging.destinationName]: queue,
      });
      return sequenceNumbers;
    };
    return { scheduleMessages };
  }

  /** The SDK's lock renewal failed (`processError` with `errorSource: "renewLock"`): the message will be redelivered. */
  lockRenewalFailed(queue: string): void {
    this.#instruments.lockRenewalFailures.add(1, { [messaging.destinationName]: queue });
  }

  /**
   * Observable gauges read from the guard's tables at each collection: spend limit, usage and utilization per
   * (period, currency), pending billings and the oldest one's age. Returns the function that stops observing.
   */
  observeGuard(health: () => Promise<GuardHealth>): () => void {
    if (!this.enabled) return () => {};
    const { spendLimit, spendUsage, spendUtilization, pendingBillings, oldestPendingAge } = this.#instruments;
    const observables = [spendLimit, spendUsage, spendUtilization, pendingBillings, oldestPendingAge];
    const meter = this.#instruments.meter;
    const callback = async (observer: Parameters<Parameters<typeof meter.addBatchObservableCallback>[0]>[0]) => {
      let snapshot: GuardHealth;
      try {
        snapshot = await health();
      } catch {
        return; // the guard is closing or unreachable: no reading beats a wrong one
      }
      observer.observe(pendingBillings, snapshot.pendingBillings);
      observer.observe(oldestPendingAge, snapshot.oldestPendingAgeSeconds ?? 0);
      for (const spend of snapshot.spend) {
        const attributes = { [attr.billingPeriod]: spend.billingPeriod, [attr.currency]: spend.currency };
        observer.observe(spendUsage, spend.usageCents, attributes);
        if (spend.limitCents === null) continue;
        observer.observe(spendLimit, spend.limitCents, attributes);
        if (spend.limitCents > 0) observer.observe(spendUtilization, spend.usageCents / spend.limitCents, attributes);
      }
    };
    meter.addBatchObservableCallback(callback, observables);
    return () => meter.removeBatchObservableCallback(callback, observables);
  }

  #claimed(result: ClaimResult, charge: { amountCents: number; currency: string }): void {
    const scope = this.#scope();
    if (scope) scope.claim = result.status;
    if (result.status === "claimed") this.#charges.set(result.lease, charge);
    const prevented: PreventedBy | undefined =
      result.status === "already-billed" ? "guard_billed" : result.status === "declined" ? "guard_declined" : result.status === "busy" ? "guard_busy" : undefined;
    if (prevented) this.#prevented(prevented, scope);
  }

  #storeClaimed<L extends StoreLease>(claim: StoreClaim<L>, spend: { amount: number; currency: string } | undefined): void {
    const scope = this.#scope();
    const status = claim.status === "already-done" ? "already-billed" : claim.status;
    if (scope) scope.claim = status;
    if (claim.status === "claimed" && spend) this.#charges.set(claim.lease, { amountCents: spend.amount, currency: spend.currency });
    const prevented: PreventedBy | undefined =
      status === "already-billed" ? "guard_billed" : status === "declined" ? "guard_declined" : status === "busy" ? "guard_busy" : undefined;
    if (prevented) this.#prevented(prevented, scope);
  }

  #recorded(state: "charged" | "declined", turned: boolean, charge: { amountCents: number; currency: string } | undefined): void {
    const scope = this.#scope();
    if (scope) scope.recorded = turned ? state : `${state}-noop`;
    if (!turned) return;
    this.#instruments.outcomes.add(1, { [attr.outcome]: state });
    if (state === "charged" && charge) this.#instruments.chargedAmount.add(charge.amountCents, { [attr.currency]: charge.currency });
  }

  #prevented(by: PreventedBy, scope: DeliveryScope | undefined): void {
    this.#instruments.duplicatesPrevented.add(1, { [attr.preventedBy]: by, [attr.source]: scope?.source ?? "other" });
  }

  async #guardOperation<T>(operation: GuardOperation, work: () => Promise<T>): Promise<T> {
    const scope = this.#scope();
    const started = performance.now();
    let failed: string | undefined;
    const attributes = this.#constant(`guard ${operation}`, () => ({ [attr.guardOperation]: operation }));
    try {
      return await this.#span(`chargeguard.${operation}`, SpanKind.INTERNAL, attributes, scope, work);
    } catch (error) {
      failed = errorTypeOf(error);
      throw error;
    } finally {
      this.#instruments.guardOperationDuration.record(
        (performance.now() - started) / 1000,
        failed === undefined ? attributes : { ...attributes, [errorType]: failed },
      );
    }
  }

  async #stripeWork<T>(scope: DeliveryScope | undefined, work: () => Promise<T>): Promise<T> {
    const result = await work();
    if ((result as { replayed?: unknown } | undefined)?.replayed === true) this.#stripeReplayed(scope);
    return result;
  }

  async #stripeCall<T>(scope: DeliveryScope | undefined, operation: StripeOperation, call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let failed: string | undefined;
    let replayed = false;
    const attributes = this.#constant(`stripe ${operation}`, () => ({ [attr.stripeOperation]: operation }));
    try {
      const result = await this.#span(`stripe ${operation}`, SpanKind.CLIENT, attributes, scope, call);
      // A Stripe object as returned carries its response's headers.
      replayed = isReplayed((result as { lastResponse?: { headers?: unknown } } | undefined)?.lastResponse?.headers);
      return result;
    } catch (error) {
      failed = errorTypeOf(error);
      replayed = isReplayed((error as { headers?: unknown } | undefined)?.headers);
      throw error;
    } finally {
      if (replayed) this.#stripeReplayed(scope);
      this.#instruments.stripeRequestDuration.record(
        (performance.now() - started) / 1000,
        failed === undefined ? attributes : { ...attributes, [errorType]: failed },
      );
    }
  }

  /** A duplicate Stripe prevented, once per delivery however many of its calls (an invoice's steps) were replayed. */
  #stripeReplayed(scope: DeliveryScope | undefined): void {
    if (scope?.stripeReplayed) return;
    if (scope) scope.stripeReplayed = true;
    this.#prevented("stripe_replayed", scope);
  }

  async #settlement(disposition: "complete" | "dead_letter", queue: string, work: () => Promise<void>): Promise<void> {
    const scope = this.#scope();
    if (scope) scope.settled = true;
    const attributes = this.#constant(`${disposition} ${queue}`, () => ({
      [messaging.system]: serviceBusSystem,
      [messaging.operationName]: disposition,
      [messaging.operationType]: "settle",
      [messaging.destinationName]: queue,
      [messaging.dispositionStatus]: disposition,
    }));
    await this.#span(`${disposition} ${queue}`, SpanKind.CLIENT, attributes, scope, work);
  }

  /** `work` in a child span of the delivery's process span (or of the active context outside a delivery). */
  async #span<T>(name: string, kind: SpanKind, attributes: Attributes, scope: DeliveryScope | undefined, work: () => Promise<T>): Promise<T> {
    const parent = scope?.context ?? context.active();
    const span: Span = this.#tracer.startSpan(name, { kind, attributes }, parent);
    try {
      return await context.with(trace.setSpan(parent, span), work);
    } catch (error) {
      const type = errorTypeOf(error);
      span.setAttribute(errorType, type);
      span.setStatus({ code: SpanStatusCode.ERROR, message: type });
      throw error;
    } finally {
      span.end();
    }
  }
}

/** The API's no-op meter (what an unregistered provider hands out), told by its class: the API exports no marker. */
function isNoopMeter(meter: Meter): boolean {
  return meter.constructor === createNoopMeter().constructor;
}

/** The API's no-op tracer provider, also behind the global proxy while nothing is registered. */
function isNoopTracerProvider(provider: TracerProvider): boolean {
  const noop = new ProxyTracerProvider().getDelegate();
  return (provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider) === noop;
}

/** The telemetry of a billing consumer; with no providers given and no SDK registered, every call is a no-op. */
export function createBillingTelemetry(options: BillingTelemetryOptions = {}): BillingTelemetry {
  return new BillingTelemetry(options);
}

/** The delivery's outcome from what its flow did; undefined when the flow stopped before deciding anything. */
function outcomeOf(scope: DeliveryScope): BillingOutcomeName | undefined {
  switch (scope.recorded) {
    case "charged":
    case "declined":
      return scope.recorded;
    case "charged-noop":
    case "declined-noop":
      return "already_billed";
    case undefined:
      break;
  }
  switch (scope.claim) {
    case "already-billed":
    case "declined":
      return "already_billed";
    case "busy":
      return "busy";
    case "mismatch":
      return "mismatch";
    case "cap-exceeded":
      return "spend_cap";
    case "claimed":
    case undefined:
      break;
  }
  switch (scope.deadLetterReason) {
    case undefined:
      break;
    case "BillingRecordMismatch":
      return "mismatch";
    case "SpendCapExceeded":
      return "spend_cap";
    case "StripeConfigurationError":
      return "configuration";
    case "RetryAttemptsExhausted":
      return "unknown";
    default:
      return "invalid";
  }
  if (scope.retryScheduled) return "unknown";
  // Completed without a claim, record or dead letter cannot happen in the flow; settled otherwise means unknown.
  return scope.settled ? "unknown" : undefined;
}

/** Outcomes that mark the process span as failed (an operator has to look); busy and duplicates are normal. */
function failedOutcome(outcome: BillingOutcomeName | undefined): string | undefined {
  switch (outcome) {
    case "unknown":
    case "invalid":
    case "mismatch":
    case "spend_cap":
    case "configuration":
      return outcome;
    default:
      return undefined;
  }
}

function boundedReason(reason: string | undefined): string {
  return reason !== undefined && (deadLetterReasons as readonly string[]).includes(reason) ? reason : "other";
}

/** A low-cardinality error type: Stripe's error type, a Service Bus error code, or the error's class name. */
function errorTypeOf(error: unknown): string {
  if (error !== null && typeof error === "object") {
    const candidate = (error as { type?: unknown; code?: unknown; name?: unknown }).type ?? (error as { code?: unknown }).code ?? (error as { name?: unknown }).name;
    if (typeof candidate === "string" && /^[A-Za-z][A-Za-z0-9_.]{0,63}$/.test(candidate)) return candidate;
  }
  return "_OTHER";
}

function isReplayed(headers: unknown): boolean {
  if (headers === null || typeof headers !== "object") return false;
  const value = (headers as Record<string, unknown>)["idempotent-replayed"] ?? (headers as Record<string, unknown>)["Idempotent-Replayed"];
  return value === "true" || value === true;
}
