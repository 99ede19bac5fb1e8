// Work in a child span of a delivery's process span (or of the active context outside a delivery), optionally timed
// into a histogram, with a low-cardinality error type when it fails. Span names and attribute sets are made once per
// operation: a new string per call is hashed anew by every lookup.
import { context, trace, SpanStatusCode, type Attributes, type Histogram, type Span, type SpanKind, type Tracer } from "@opentelemetry/api";
import type { DeliveryScope } from "./delivery-scope.js";
import { errorType } from "./semantic-conventions.js";

/** A span's name and attributes (also its duration's), made once per operation. */
export interface Operation {
  readonly name: string;
  readonly attributes: Attributes;
}

export function cachedOperation<K>(operations: Map<K, Operation>, key: K, make: () => Operation): Operation {
  let known = operations.get(key);
  if (known === undefined) {
    const made = make();
    operations.set(key, (known = Object.freeze({ name: made.name, attributes: Object.freeze(made.attributes) })));
  }
  return known;
}

/** `work` in a child span (as `childSpan`), its duration recorded in `duration` with the span's attributes. */
export async function timedSpan<T>(
  tracer: Tracer,
  operation: Operation,
  kind: SpanKind,
  scope: DeliveryScope | undefined,
  duration: Histogram,
  work: () => Promise<T>,
): Promise<T> {
  const parent = scope?.context ?? context.active();
  const { name, attributes } = operation;
  const span: Span = tracer.startSpan(name, { kind, attributes }, parent);
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
export async function childSpan<T>(
  tracer: Tracer,
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  scope: DeliveryScope | undefined,
  work: () => Promise<T>,
): Promise<T> {
  const parent = scope?.context ?? context.active();
  const span: Span = tracer.startSpan(name, { kind, attributes }, parent);
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

/** A low-cardinality error type: Stripe's error type, a Service Bus error code, or the error's class name. */
export function errorTypeOf(error: unknown): string {
  if (error !== null && typeof error === "object") {
    const candidate = (error as { type?: unknown; code?: unknown; name?: unknown }).type ?? (error as { code?: unknown }).code ?? (error as { name?: unknown }).name;
    if (typeof candidate === "string" && /^[A-Za-z][A-Za-z0-9_.]{0,63}$/.test(candidate)) return candidate;
  }
  return "_OTHER";
}
