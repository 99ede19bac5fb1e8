// The flow's Stripe work as telemetry sees it: each call traced and timed inside the slot (the wait for a slot is
// not Stripe's time), and a duplicate Stripe prevented counted once per delivery when it answers from its
// idempotency cache (the `Idempotent-Replayed` header, or a flow's result that says `replayed`).
import { SpanKind, type Tracer } from "@opentelemetry/api";
import type { StripeOperation } from "../stripe/stripe-call.js";
import type { DeliveryScope } from "./delivery-scope.js";
import type { Instruments } from "./instruments.js";
import { attributeNames as attr } from "./metric-names.js";
import { countPrevented } from "./prevented-duplicates.js";
import { cachedOperation, timedSpan, type Operation } from "./traced-work.js";

/** Runs a Stripe call in a slot (billing-handler's `stripeSlot`). */
export type StripeSlot = <T>(work: () => Promise<T>) => Promise<T>;

export class StripeInstrumentation {
  readonly #tracer: Tracer;
  readonly #instruments: Instruments;
  readonly #operations = new Map<StripeOperation, Operation>();

  constructor(tracer: Tracer, instruments: Instruments) {
    this.#tracer = tracer;
    this.#instruments = instruments;
  }

  /**
   * The flow's Stripe work in its slot. Its calls are traced one by one (`call`), inside the slot. A flow that reports
   * no calls but says its result was `replayed` still counts the duplicate Stripe prevented.
   */
  slot(slot: StripeSlot | undefined, scope: DeliveryScope): StripeSlot {
    if (!slot) return (work) => this.#work(scope, work);
    return (work) => slot(() => this.#work(scope, work));
  }

  async call<T>(scope: DeliveryScope, operation: StripeOperation, call: () => Promise<T>): Promise<T> {
    const known = cachedOperation(this.#operations, operation, () => ({ name: `stripe ${operation}`, attributes: { [attr.stripeOperation]: operation } }));
    try {
      const result = await timedSpan(this.#tracer, known, SpanKind.CLIENT, scope, this.#instruments.stripeRequestDuration, call);
      // A Stripe object as returned carries its response's headers.
      if (isReplayed((result as { lastResponse?: { headers?: unknown } } | undefined)?.lastResponse?.headers)) this.#replayed(scope);
      return result;
    } catch (error) {
      if (isReplayed((error as { headers?: unknown } | undefined)?.headers)) this.#replayed(scope);
      throw error;
    }
  }

  async #work<T>(scope: DeliveryScope, work: () => Promise<T>): Promise<T> {
    const result = await work();
    if ((result as { replayed?: unknown } | undefined)?.replayed === true) this.#replayed(scope);
    return result;
  }

  /** A duplicate Stripe prevented, once per delivery however many of its calls (an invoice's steps) were replayed. */
  #replayed(scope: DeliveryScope): void {
    if (scope.stripeReplayed) return;
    scope.stripeReplayed = true;
    countPrevented(this.#instruments, "stripe_replayed", scope);
  }
}

function isReplayed(headers: unknown): boolean {
  if (headers === null || typeof headers !== "object") return false;
  const value = (headers as Record<string, unknown>)["idempotent-replayed"] ?? (headers as Record<string, unknown>)["Idempotent-Replayed"];
  return value === "true" || value === true;
}
