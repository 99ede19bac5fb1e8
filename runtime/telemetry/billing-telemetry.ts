// The billing consumer's telemetry through @opentelemetry/api only: a no-op until the application registers an SDK
// (or passes providers). It wraps what the billing flow already goes through (the guard port, the Stripe slot, the
// receiver's settlements, the retry scheduler) instead of living inside the flow, so the flow's code stays as it is.
// Each delivery gets its own instances of those parts, bound to its scope, which ties the guard's answers, the Stripe
// calls and the settlement back to the delivery they belong to. The scope is passed, not found: no AsyncLocalStorage,
// whose promise hooks slowed every promise of the process (the SDKs' and the guard's too) while telemetry was on.
import {
  context,
  metrics,
  trace,
  SpanKind,
  SpanStatusCode,
  type MeterProvider,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import type { DeliveryPorts, MessageSettler, RetryScheduler } from "../handler/billing-handler.js";
import type { GuardStore, StoreLease } from "../guard/guard-store.js";
import type { GuardHealth } from "../guard/health.js";
import { attemptOf } from "../handler/retry-chain.js";
import { failedOutcome, outcomeOf, type DeliveryScope } from "./delivery-scope.js";
import { deliverySource } from "./delivery-source.js";
import { observeGuardHealth } from "./guard-gauges.js";
import { GuardInstrumentation } from "./guard-instrumentation.js";
import { createInstruments, type Instruments } from "./instruments.js";
import { attributeNames as attr, meterName } from "./metric-names.js";
import { isNoopMeter, isNoopTracerProvider } from "./noop-providers.js";
import { producerLinks } from "./producer-link.js";
import { errorType, messaging, semanticConventionsSchemaUrl, serviceBusSystem } from "./semantic-conventions.js";
import { SettlementInstrumentation } from "./settlement-instrumentation.js";
import { StripeInstrumentation } from "./stripe-instrumentation.js";
import { cachedOperation, errorTypeOf, type Operation } from "./traced-work.js";

export type { StripeSlot } from "./stripe-instrumentation.js";

export interface BillingTelemetryOptions {
  /** Default: the global one (`metrics.getMeterProvider()` when the telemetry is created: register the SDK first). */
  meterProvider?: MeterProvider;
  /** Default: the global one. */
  tracerProvider?: TracerProvider;
}

/** What one delivery runs through: the handler's settler, scheduler and ports (billing-handler.ts). */
export interface DeliveryParts {
  settler: MessageSettler;
  scheduler: RetryScheduler;
  ports: DeliveryPorts;
}

export class BillingTelemetry {
  readonly #tracer: Tracer;
  readonly #instruments: Instruments;
  readonly #guard: GuardInstrumentation;
  readonly #stripe: StripeInstrumentation;
  readonly #settlements: SettlementInstrumentation;

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
    this.#guard = new GuardInstrumentation(this.#tracer, this.#instruments);
    this.#stripe = new StripeInstrumentation(this.#tracer, this.#instruments);
    this.#settlements = new SettlementInstrumentation(this.#tracer, this.#instruments);
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
    return cachedOperation(this.#processingByQueue, queue, () => ({
      name: `process ${queue}`,
      attributes: { [messaging.system]: serviceBusSystem, [messaging.operationName]: "process", [messaging.destinationName]: queue },
    }));
  }

  /** A delivery's own parts: each reports to its scope. */
  #deliveryParts(parts: DeliveryParts, queue: string, scope: DeliveryScope): DeliveryParts {
    const { store, stripeSlot } = parts.ports;
    return {
      settler: this.#settlements.settler(parts.settler, queue, scope),
      scheduler: this.#settlements.scheduler(parts.scheduler, queue, scope),
      ports: {
        ...(store === undefined ? {} : { store: this.#guard.storePort(store, scope) }),
        stripeSlot: this.#stripe.slot(stripeSlot, scope),
        stripeCall: (operation, call) => this.#stripe.call(scope, operation, call),
      },
    };
  }

  /** The guard's store outside any delivery (the reconciler), timed and traced; its answers feed the outcomes. */
  instrumentStore<L extends StoreLease>(store: GuardStore<L>): GuardStore<L> {
    return this.enabled ? this.#guard.storePort(store, undefined) : store;
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
    return observeGuardHealth(this.#instruments, health);
  }
}

/** The telemetry of a billing consumer; with no providers given and no SDK registered, every call is a no-op. */
export function createBillingTelemetry(options: BillingTelemetryOptions = {}): BillingTelemetry {
  return new BillingTelemetry(options);
}
