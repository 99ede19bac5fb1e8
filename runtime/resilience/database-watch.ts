// The guard's database calls through the database's breaker: while it is open nothing is sent (a delivery fails
// fast, as a wait); a failure that is the server or the path being down (refused, reset, timed out) tells the breaker
// and leaves as DependencyUnavailableError, so the outcome says the database, not the event, failed. Wrapped once per
// consumer: per call it costs a field read.
import type { CircuitBreaker } from "./circuit-breaker.js";
import { databaseFault, DependencyUnavailableError } from "./dependency-fault.js";

type AsyncMethods<T> = { [K in keyof T]: T[K] extends (...args: never[]) => Promise<unknown> ? K : never }[keyof T];

/** The named methods of `port`, watched (bound to `port`: its private fields stay reachable). */
export function watchDatabase<T extends object, K extends AsyncMethods<T>>(port: T, methods: readonly K[], breaker: CircuitBreaker): Pick<T, K> {
  const watched: Record<PropertyKey, unknown> = {};
  for (const name of methods) {
    const method = (port as Record<PropertyKey, unknown>)[name as PropertyKey] as (...args: unknown[]) => Promise<unknown>;
    watched[name as PropertyKey] = async (...args: unknown[]) => {
      breaker.check();
      try {
        const result = await method.apply(port, args);
        breaker.succeeded();
        return result;
      } catch (error) {
        const fault = databaseFault(error);
        if (fault === undefined) throw error;
        breaker.failed(error instanceof Error ? error.message : String(error));
        throw new DependencyUnavailableError(fault, `the database is unavailable: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    };
  }
  return watched as Pick<T, K>;
}
