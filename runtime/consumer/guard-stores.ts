// Where the consumer records billings: the one guard (guard_records), shared as given and not closed by the
// consumer, or opened from the context's database settings and closed with it.
import { guardPoolSize } from "../../tuning/index.js";
import { Guard } from "../guard/guard.js";
import type { GuardStore } from "../guard/guard-store.js";
import type { GuardHealth } from "../guard/health.js";
import { openWhenReachable, StartStoppedSignal } from "./database-at-start.js";
import type { AnyConsumerOptions, ResolvedConsumerSettings } from "./consumer-settings.js";

export interface GuardStores {
  /** The guard's store the handler runs on. */
  store: GuardStore;
  /** The guard whose health the telemetry's gauges read (own or shared), when it is a guard. */
  observed: { health(): Promise<GuardHealth> } | undefined;
  /** Writes what the consumer's own guard has queued and closes it; a shared one stays open. */
  close(bound: (closing: Promise<unknown>) => Promise<void>): Promise<void>;
  /** Closes what the consumer opened, when it fails to start. */
  closeOwn(): Promise<void>;
}

export async function openGuardStores(options: AnyConsumerOptions, settings: ResolvedConsumerSettings, log: (line: string) => void): Promise<GuardStores> {
  const shared = options.guard as GuardStore | undefined;
  if (shared !== undefined) {
    return { store: shared, observed: shared instanceof Guard ? shared : undefined, close: async () => {}, closeOwn: async () => {} };
  }
  const connection = {
    ...(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl }),
    ...(options.databasePassword === undefined ? {} : { databasePassword: options.databasePassword }),
    ...(options.databaseTimeouts === undefined ? {} : { databaseTimeouts: options.databaseTimeouts }),
    ...(options.pglite === undefined ? {} : { pglite: options.pglite }),
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    ...(options.inMemory === undefined ? {} : { inMemory: options.inMemory }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.periodCapCents === undefined ? {} : { periodCapCents: options.periodCapCents }),
    ...(options.periodCaps === undefined ? {} : { periodCaps: options.periodCaps }),
    // Claimed before it waits for a Stripe slot, a billing is held for the wait and the call.
    leaseMs: options.leaseMs ?? settings.heldMs,
    // A connection per message in flight (and one for the batched writes): a delivery never queues for one. The
    // same number sizes the deployment's connection budget (max replicas), so it comes from the tuning room.
    poolSize: guardPoolSize(settings.maxConcurrentCalls),
    // A connection the server cut is reported in the consumer's own log, not on the process's stderr.
    databaseLog: log,
  };
  // PostgreSQL down or failing over at start: wait for it, not ready meanwhile (PGlite has no server to wait for).
  const wait = {
    log,
    ...(options.databaseStartWaitMs === undefined ? {} : { waitMs: options.databaseStartWaitMs }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onDatabaseWait === undefined ? {} : { onWaiting: options.onDatabaseWait }),
  };
  const open = () => Guard.open(connection);
  const guard = await (options.databaseUrl === undefined ? open() : openWhenReachable(open, wait));
  if (options.signal?.aborted) {
    // The stop came while the last attempt was connecting: nothing opened stays open.
    await guard.close();
    throw new StartStoppedSignal();
  }
  return {
    store: guard,
    observed: guard,
    async close(bound) {
      await bound(guard.close());
    },
    closeOwn: () => guard.close(),
  };
}
