// The replicas of a contender share one meter provider (one in-memory reader for the contender). Their per-replica
// observable instruments (each breaker's paused seconds and state) then observe the same attribute sets, and the SDK
// keeps one observation per set, not their sum: the paused seconds read back as one replica's. This wrapper tags the
// observations of those instruments, registration by registration, with `registrationAttribute`, so each replica's
// are kept apart; the reader sums them back into one point per attribute set (telemetry-reader.ts). Everything else
// is untouched: counters the SDK adds up, and the guard's gauges, which every replica observes alike from the table.
import type { Meter, MeterProvider, Observable, ObservableCallback, ObservableResult } from "@opentelemetry/api";

const observableFactories = new Set(["createObservableCounter", "createObservableGauge", "createObservableUpDownCounter"]);

export const registrationAttribute = "prove.registration";

/** `perReplica`: the instrument names whose observations are one replica's own. */
export function distinctObservations(provider: MeterProvider, perReplica: ReadonlySet<string>): MeterProvider {
  let registrations = 0;
  const tagged = (instrument: Observable, registration: number): Observable => {
    const wrapped = new Map<ObservableCallback, ObservableCallback>();
    return {
      addCallback(callback) {
        const inner: ObservableCallback = (result: ObservableResult) =>
          callback({ observe: (value, attributes) => result.observe(value, { ...attributes, [registrationAttribute]: registration }) });
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
            return (...args: unknown[]) => {
              const instrument = (value as (...a: unknown[]) => Observable).apply(target, args);
              return perReplica.has(String(args[0])) ? tagged(instrument, registrations++) : instrument;
            };
          }
          return (value as (...a: unknown[]) => unknown).bind(target);
        },
      }) as Meter;
    },
  };
}
