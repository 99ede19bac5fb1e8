// The replicas of a contender share one meter provider (one in-memory reader for the contender). Their observable
// instruments (the breakers' paused seconds and states, the guard's gauges) then observe the same attribute sets, and
// the SDK keeps one observation per set, not their sum: the paused seconds read back as one replica's. This wrapper
// tags each registration's observations with its own `prove.registration` attribute, so each replica's are kept
// apart and the harness's sums over them are sums. Counters and histograms are untouched (the SDK adds those up).
import type { Meter, MeterProvider, Observable, ObservableCallback, ObservableResult } from "@opentelemetry/api";

const observableFactories = new Set(["createObservableCounter", "createObservableGauge", "createObservableUpDownCounter"]);

export function distinctObservations(provider: MeterProvider): MeterProvider {
  let registrations = 0;
  const tagged = (instrument: Observable, registration: number): Observable => {
    const wrapped = new Map<ObservableCallback, ObservableCallback>();
    return {
      addCallback(callback) {
        const inner: ObservableCallback = (result: ObservableResult) =>
          callback({ observe: (value, attributes) => result.observe(value, { ...attributes, "prove.registration": registration }) });
        wrapped.set(callback, inner);
        instrument.addCallback(inner);
      },
      removeCallback(callback) {
        const inner = wrapped.get(callback);
        if (inner) instrument.removeCallback(inner);
        wrapped.delete(callback);
      },
    };
  };
  return {
    getMeter(name, version, options) {
      const meter = provider.getMeter(name, version, options);
      return new Proxy(meter, {
        get(target, property) {
          const value: unknown = Reflect.get(target, property);
          if (typeof value !== "function") return value;
          if (typeof property === "string" && observableFactories.has(property)) {
            return (...args: unknown[]) => tagged((value as (...a: unknown[]) => Observable).apply(target, args), registrations++);
          }
          return (value as (...a: unknown[]) => unknown).bind(target);
        },
      }) as Meter;
    },
  };
}
