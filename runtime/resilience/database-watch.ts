// The guard's database calls through the database's breaker: while it is open nothing is sent (a delivery fails
// fast, as a wait); a failure that is the server or the path being down (refused, reset, timed out) tells the breaker
// and leaves as DependencyUnavailableError, so the outcome says the database, not the event, failed. Every method of
// the store is wrapped (decorate-store.ts); per call it costs a field read.
import { decorateStore } from "../guard/decorate-store.js";
import type { GuardStore, StoreLease } from "../guard/guard-store.js";
import type { CircuitBreaker } from "./circuit-breaker.js";
import { databaseFault, DependencyUnavailableError } from "../guard/dependency-fault.js";

export function watchDatabase<L extends StoreLease>(store: GuardStore<L>, breaker: CircuitBreaker): GuardStore<L> {
  return decorateStore(store, async (_method, call) => {
    breaker.check();
    try {
      const result = await call();
      breaker.succeeded();
      return result;
    } catch (error) {
      const fault = databaseFault(error);
      if (fault === undefined) throw error;
      breaker.failed(error instanceof Error ? error.message : String(error));
      throw new DependencyUnavailableError(fault, `the database is unavailable: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  });
}
