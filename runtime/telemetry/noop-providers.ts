// Whether the application registered (or passed) an OpenTelemetry SDK: without one, the telemetry hands the
// consumer's own parts back unwrapped, so a consumer without telemetry pays nothing for it.
import { createNoopMeter, ProxyTracerProvider, type Meter, type TracerProvider } from "@opentelemetry/api";

/** The API's no-op meter (what an unregistered provider hands out), told by its class: the API exports no marker. */
export function isNoopMeter(meter: Meter): boolean {
  return meter.constructor === createNoopMeter().constructor;
}

/** The API's no-op tracer provider, also behind the global proxy while nothing is registered. */
export function isNoopTracerProvider(provider: TracerProvider): boolean {
  const noop = new ProxyTracerProvider().getDelegate();
  return (provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider) === noop;
}
