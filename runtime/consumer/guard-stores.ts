// Where the consumer records billings: billing_records (BillingGuard: the default event and flow, with its
// reconciler and group commit) or guard_records (Guard: any other flow or event). Shared ones are used as given and
// not closed by the consumer; otherwise the consumer opens its own from the context's database settings.
import { DATABASE_START_WAIT_MS, guardPoolSize } from "../../tuning/index.js";
import type { BillingGuardPort } from "../handler/billing-handler.js";
import { BillingGuard } from "../guard/billing-guard.js";
import type { GuardStore } from "../guard/guard-store.js";
import type { GuardHealth } from "../guard/health.js";
import { Guard } from "../guard/record-guard.js";
import { paymentIntentFlow } from "../flows/payment-intent-flow.js";
import { openWhenReachable } from "../resilience/database-at-start.js";
import type { AnyConsumerOptions, ConsumerSettings } from "./consumer-settings.js";

export interface GuardStores {
  /** billing_records, when the consumer is on them. */
  guard: BillingGuardPort | undefined;
  /** guard_records, when the consumer is not on billing_records. */
  store: GuardStore | undefined;
  /** The store whose health the telemetry's gauges read (own or shared), if it tells its health. */
  observed: { health(): Promise<GuardHealth> } | undefined;
  /** Closes what the consumer opened; flushes a shared guard's queued completions. */
  close(bound: (closing: Promise<unknown>) => Promise<void>): Promise<void>;
  /** Closes what the consumer opened, when it fails to start. */
  closeOwn(): Promise<void>;
}

export async function openGuardStores(options: AnyConsumerOptions, settings: ConsumerSettings, log: (line: string) => void): Promise<GuardStores> {
  const onBillingRecords = options.event === undefined && settings.flow === paymentIntentFlow && options.guardStore === undefined;
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
    // A connection per message in flight (and one for the batched completions): a delivery never queues for one.
    // The same number sizes the deployment's connection budget (max replicas), so it comes from the tuning room.
    poolSize: guardPoolSize(settings.maxConcurrentCalls),
  };
  // PostgreSQL failing over at start: wait for it inside the startup window (PGlite has no server to wait for).
  const wait = { waitMs: options.databaseStartWaitMs ?? DATABASE_START_WAIT_MS, log };
  const reachable = <T>(open: () => Promise<T>) => (options.databaseUrl === undefined ? open() : openWhenReachable(open, wait));
  const sharedGuard = onBillingRecords ? options.guard : undefined;
  const ownGuard = onBillingRecords && !sharedGuard ? await reachable(() => BillingGuard.open(connection)) : undefined;
  const guard: BillingGuardPort | undefined = sharedGuard ?? ownGuard;
  const ownStore = onBillingRecords || options.guardStore ? undefined : await reachable(() => Guard.open(connection));
  return {
    guard,
    store: (options.guardStore ?? ownStore) as GuardStore | undefined,
    observed: ownGuard ?? (sharedGuard instanceof BillingGuard ? sharedGuard : undefined) ?? ownStore ?? (options.guardStore instanceof Guard ? options.guardStore : undefined),
    async close(bound) {
      if (ownGuard) await bound(ownGuard.close());
      else if (guard) await bound(guard.flushCompletions());
      if (ownStore) await bound(ownStore.close());
    },
    async closeOwn() {
      await ownGuard?.close();
      await ownStore?.close();
    },
  };
}
