// The billing consumer's telemetry through @opentelemetry/api only: a no-op until the application registers an SDK
// (or passes providers). It wraps what the billing flow already goes through (the guard port, the Stripe slot, the
// receiver's settlements, the retry scheduler) instead of living inside the flow, so the flow's code stays as it is.
// Each delivery gets its own instances of those parts, bound to its scope, which ties the guard's answers, the Stripe
// calls and the settlement back to the delivery they belong to. The scope is passed, not found: no AsyncLocalStorage,
// whose promise hooks slowed every promise of the process (the SDKs' and the guard's too) while telemetry was on.
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
  type Histogram,
  type Meter,
  type MeterProvider,
  type Span,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import type { BillingGuardPort, DeliveryPorts, MessageSettler, RetryScheduler } from "../billing-handler.js";
import type { StripeOperation } from "../flows/stripe-call.js";
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

/** What one delivery runs through: the handler's settler, scheduler and ports (billing-handler.ts). */
export interface DeliveryParts {
  settler: MessageSettler;
  scheduler: RetryScheduler;
  ports: DeliveryPorts;
}

/** What one delivery did, gathered while its flow runs. */
interface DeliveryScope {
  readonly queue: string;
  readonly span: Span;
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
  /** The settlement failed (the message will be redelivered): its error type. */
  settlementFailed?: string;
}

export class BillingTelemetry {
  readonly #tracer: Tracer;
  readonly #instruments: Instruments;
  /** What a lease's billing would charge: counted when its record turns charged (in a delivery or in the reconciler). */
  readonly #charges = new WeakMap<Lease | StoreLease, { amountCents: number; currency: string }>();

  /**
   * False when neither a meter provider nor a tracer provider is registered (or given): then every method hands the
   * consumer's own parts back unwrapped, so a consumer without telemetry pays nothing for it.
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

  /**
   * Runs one delivery's flow inside its process span; `work` gets `parts` instrumented for this delivery (the same
   * `parts` when telemetry is off), so what they report counts for it. Counts its outcome when it ends.
   */
  processMessage(message: ServiceBusReceivedMessage, queue: string, parts: DeliveryParts, work: (parts: DeliveryParts) => Promise<void>): Promise<void> {
    return this.enabled ? this.#process(message, queue, parts, work) : work(parts);
  }

  async #process(message: ServiceBusReceivedMessage, queue: string, parts: DeliveryParts, work: (parts: DeliveryParts) => Promise<void>): Promise<void> {
    const source = deliverySource(message);
    const parent = context.active();
    const processing = this.#processing(queue);
    const span = this.#tracer.startSpan(
      processing.name,
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
    const scope: DeliveryScope = { queue, span, source, context: trace.setSpan(parent, span) };
    const messagingAttributes = processing.attributes;
    this.#instruments.consumedMessages.add(1, messagingAttributes);
    const started = performance.now();
    let failure: unknown;
    try {
      const scoped = this.#deliveryParts(parts, queue, scope);
      await context.with(scope.context, () => work(scoped));
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      const outcome = outcomeOf(scope);
      if (outcome !== undefined && scope.recorded !== "charged" && scope.recorded !== "declined") {
        this.#instruments.outcomes.add(1, { [attr.outcome]: outcome });
      }
      if (outcome !== undefined) span.setAttribute(attr.outcome, outcome);
      const failed = failure === undefined ? (failedOutcome(outcome) ?? scope.settlementFailed) : errorTypeOf(failure);
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

  readonly #processingByQueue = new Map<string, Operation>();

  /** The process span's name and the messaging metrics' attributes, per queue. */
  #processing(queue: string): Operation {
    return cached(this.#processingByQueue, queue, () => ({
      name: `process ${queue}`,
      attributes: { [messaging.system]: serviceBusSystem, [messaging.operationName]: "process", [messaging.destinationName]: queue },
    }));
  }

  /** A delivery's own parts: each reports to its scope. */
  #deliveryParts(parts: DeliveryParts, queue: string, scope: DeliveryScope): DeliveryParts {
    const { guard, store, stripeSlot } = parts.ports;
    return {
      settler: this.#settler(parts.settler, queue, scope),
      scheduler: this.#scheduler(parts.scheduler, queue, scope),
      ports: {
        ...(guard === undefined ? {} : { guard: this.#guardPort(guard, scope) }),
        ...(store === undefined ? {} : { store: this.#storePort(store, scope) }),
        stripeSlot: this.#stripeSlot(stripeSlot, scope),
        stripeCall: (operation, call) => this.#stripeCall(scope, operation, call),
      },
    };
  }

  /** The guard port outside any delivery (the reconciler), timed and traced; its answers feed the outcomes. */
  instrumentGuard(guard: BillingGuardPort): BillingGuardPort {
    return this.enabled ? this.#guardPort(guard, undefined) : guard;
  }

  #guardPort(guard: BillingGuardPort, scope: DeliveryScope | undefined): BillingGuardPort {
    return {
      claim: (input, owner) =>
        this.#guardOperation("claim", scope, async () => {
          const result = await guard.claim(input, owner);
          this.#claimed(result, { amountCents: input.amountCents, currency: input.currency }, scope);
          return result;
        }),
      markCharged: (lease, outcome) =>
        this.#guardOperation("mark_charged", scope, async () => {
          const turned = await guard.markCharged(lease, outcome);
          this.#recorded("charged", turned, this.#charges.get(lease), scope);
          return turned;
        }),
      markDeclined: (lease, outcome) =>
        this.#guardOperation("mark_declined", scope, async () => {
          const turned = await guard.markDeclined(lease, outcome);
          this.#recorded("declined", turned, undefined, scope);
          return turned;
        }),
      releaseLease: (lease) => this.#guardOperation("release_lease", scope, () => guard.releaseLease(lease)),
      ...(guard.forgetRefused === undefined ? {} : { forgetRefused: (lease) => this.#guardOperation("forget", scope, () => guard.forgetRefused!(lease)) }),
      markCompletedLater: (key) => guard.markCompletedLater(key),
      flushCompletions: () => guard.flushCompletions(),
    };
  }

  /**
   * A guard_records store (any flow but the default one, or the team's own event): timed and traced like the billing
   * guard, its answers feeding the same outcomes, charged amounts and duplicates prevented.
   */
  #storePort<L extends StoreLease>(store: GuardStore<L>, scope: DeliveryScope): GuardStore<L> {
    return {
      claim: (request) =>
        this.#guardOperation("claim", scope, async () => {
          const claim = await store.claim(request);
          this.#storeClaimed(claim, request.spend, scope);
          return claim;
        }),
      saveStep: (lease, step, objectId) => this.#guardOperation("save_step", scope, () => store.saveStep(lease, step, objectId)),
      markDone: (lease, outcome) =>
        this.#guardOperation("mark_charged", scope, async () => {
          const turned = await store.markDone(lease, outcome);
          this.#recorded("charged", turned, this.#charges.get(lease), scope);
          return turned;
        }),
      markDeclined: (lease, outcome) =>
        this.#guardOperation("mark_declined", scope, async () => {
          const turned = await store.markDeclined(lease, outcome);
          this.#recorded("declined", turned, undefined, scope);
          return turned;
        }),
      release: (lease) => this.#guardOperation("release_lease", scope, () => store.release(lease)),
      ...(store.forget === undefined ? {} : { forget: (lease: L) => this.#guardOperation("forget", scope, () => store.forget!(lease)) }),
    };
  }

  /**
   * The flow's Stripe work in its slot. Its calls are traced one by one (`#stripeCall`), inside the slot: the wait for
   * a slot is not Stripe's time. A flow that reports no calls but says its result was `replayed` still counts the
   * duplicate Stripe prevented.
   */
  #stripeSlot(slot: StripeSlot | undefined, scope: DeliveryScope): StripeSlot {
    if (!slot) return (work) => this.#stripeWork(scope, work);
    return (work) => slot(() => this.#stripeWork(scope, work));
  }

  /** The receiver's settlements, as the process span's disposition; dead letters counted by reason. */
  #settler(receiver: MessageSettler, queue: string, scope: DeliveryScope): MessageSettler {
    return {
      completeMessage: (message) => this.#settlement("complete", scope, () => receiver.completeMessage(message)),
      deadLetterMessage: (message, options) => {
        const reason = boundedReason(options?.deadLetterReason);
        scope.deadLetterReason = reason;
        return this.#settlement("dead_letter", scope, async () => {
          await receiver.deadLetterMessage(message, options);
          // A configuration fault gate puts the message back and pauses: no dead letter to count.
          if (!leftOnQueue(message)) this.#instruments.deadLetters.add(1, { [attr.deadLetterReason]: reason, [messaging.destinationName]: queue });
        });
      },
    };
  }

  /** The retry scheduler: each scheduled retry counted, with the outcome that asked for it (busy or unknown). */
  #scheduler(sender: RetryScheduler, queue: string, scope: DeliveryScope): RetryScheduler {
    const scheduleMessages: RetryScheduler["scheduleMessages"] = async (messages, scheduledEnqueueTimeUtc, options) => {
      scope.retryScheduled = true;
      const outcome: BillingOutcomeName = scope.claim === "busy" ? "busy" : "unknown";
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

  #claimed(result: ClaimResult, charge: { amountCents: number; currency: string }, scope: DeliveryScope | undefined): void {
    if (scope) scope.claim = result.status;
    if (result.status === "claimed") this.#charges.set(result.lease, charge);
    const prevented: PreventedBy | undefined =
      result.status === "already-billed" ? "guard_billed" : result.status === "declined" ? "guard_declined" : result.status === "busy" ? "guard_busy" : undefined;
    if (prevented) this.#prevented(prevented, scope);
  }

  #storeClaimed<L extends StoreLease>(claim: StoreClaim<L>, spend: { amount: number; currency: string } | undefined, scope: DeliveryScope | undefined): void {
    const status = claim.status === "already-done" ? "already-billed" : claim.status;
    if (scope) scope.claim = status;
    if (claim.status === "claimed" && spend) this.#charges.set(claim.lease, { amountCents: spend.amount, currency: spend.currency });
    const prevented: PreventedBy | undefined =
      status === "already-billed" ? "guard_billed" : status === "declined" ? "guard_declined" : status === "busy" ? "guard_busy" : undefined;
    if (prevented) this.#prevented(prevented, scope);
  }

  #recorded(state: "charged" | "declined", turned: boolean, charge: { amountCents: number; currency: string } | undefined, scope: DeliveryScope | undefined): void {
    if (scope) scope.recorded = turned ? state : `${state}-noop`;
    if (!turned) return;
    this.#instruments.outcomes.add(1, { [attr.outcome]: state });
    if (state === "charged" && charge) this.#instruments.chargedAmount.add(charge.amountCents, { [attr.currency]: charge.currency });
  }

  #prevented(by: PreventedBy, scope: DeliveryScope | undefined): void {
    this.#instruments.duplicatesPrevented.add(1, { [attr.preventedBy]: by, [attr.source]: scope?.source ?? "other" });
  }

  /** Span names and attribute sets per operation, made once (a new string per call is hashed anew by every lookup). */
  readonly #guardOperations = new Map<GuardOperation, Operation>();
  readonly #stripeOperations = new Map<StripeOperation, Operation>();

  #guardOperation<T>(operation: GuardOperation, scope: DeliveryScope | undefined, work: () => Promise<T>): Promise<T> {
    const known = cached(this.#guardOperations, operation, () => ({ name: `chargeguard.${operation}`, attributes: { [attr.guardOperation]: operation } }));
    return this.#timedSpan(known, SpanKind.INTERNAL, scope, this.#instruments.guardOperationDuration, work);
  }

  async #stripeWork<T>(scope: DeliveryScope, work: () => Promise<T>): Promise<T> {
    const result = await work();
    if ((result as { replayed?: unknown } | undefined)?.replayed === true) this.#stripeReplayed(scope);
    return result;
  }

  async #stripeCall<T>(scope: DeliveryScope, operation: StripeOperation, call: () => Promise<T>): Promise<T> {
    const known = cached(this.#stripeOperations, operation, () => ({ name: `stripe ${operation}`, attributes: { [attr.stripeOperation]: operation } }));
    try {
      const result = await this.#timedSpan(known, SpanKind.CLIENT, scope, this.#instruments.stripeRequestDuration, call);
      // A Stripe object as returned carries its response's headers.
      if (isReplayed((result as { lastResponse?: { headers?: unknown } } | undefined)?.lastResponse?.headers)) this.#stripeReplayed(scope);
      return result;
    } catch (error) {
      if (isReplayed((error as { headers?: unknown } | undefined)?.headers)) this.#stripeReplayed(scope);
      throw error;
    }
  }

  /** A duplicate Stripe prevented, once per delivery however many of its calls (an invoice's steps) were replayed. */
  #stripeReplayed(scope: DeliveryScope): void {
    if (scope.stripeReplayed) return;
    scope.stripeReplayed = true;
    this.#prevented("stripe_replayed", scope);
  }

  /**
   * The disposition is an attribute of the delivery's process span (as the conventions put it on the operation that
   * settles) rather than a span of its own: a fifth span per message was a fifth of what tracing cost, and the Service
   * Bus SDK spans each settlement itself when its tracing is on.
   */
  async #settlement(disposition: "complete" | "dead_letter", scope: DeliveryScope, work: () => Promise<void>): Promise<void> {
    scope.settled = true;
    scope.span.setAttribute(messaging.dispositionStatus, disposition);
    try {
      await work();
    } catch (error) {
      scope.settlementFailed = errorTypeOf(error);
      throw error;
    }
  }

  /** `work` in a child span (as `#span`), its duration recorded in `duration` with the span's attributes. */
  async #timedSpan<T>(operation: Operation, kind: SpanKind, scope: DeliveryScope | undefined, duration: Histogram, work: () => Promise<T>): Promise<T> {
    const parent = scope?.context ?? context.active();
    const { name, attributes } = operation;
    const span: Span = this.#tracer.startSpan(name, { kind, attributes }, parent);
    const started = performance.now();
    let failed: string | undefined;
    try {
      return await context.with(trace.setSpan(parent, span), work);
    } catch (error) {
      failed = errorTypeOf(error);
      span.setAttribute(errorType, failed);
      span.setStatus({ code: SpanStatusCode.ERROR, message: failed });
      throw error;
    } finally {
      span.end();
      duration.record((performance.now() - started) / 1000, failed === undefined ? attributes : { ...attributes, [errorType]: failed });
    }
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

/** A span's name and attributes (also its duration's), made once per operation. */
interface Operation {
  readonly name: string;
  readonly attributes: Attributes;
}

function cached<K>(operations: Map<K, Operation>, key: K, make: () => Operation): Operation {
  let known = operations.get(key);
  if (known === undefined) {
    const made = make();
    operations.set(key, (known = Object.freeze({ name: made.name, attributes: Object.freeze(made.attributes) })));
  }
  return known;
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
