// What a consumer runs to keep billing through degraded dependencies (README, "Degraded dependencies"): the Stripe
// budget's governor (shared through PostgreSQL when the consumer is on it), a breaker per dependency with its probe,
// and the guard's database calls watched. Breakers tell `onBreaker`, which pauses and resumes intake.
import { worstCaseStripeMs } from "../../tuning/index.js";
import type { GuardStore } from "../guard/guard-store.js";
import { connectionParams } from "../guard/pg-client.js";
import { loadPg } from "../sdk/load-pg.js";
import type { AnyConsumerOptions, ResolvedConsumerSettings } from "./consumer-settings.js";
import { bounded } from "./bounded.js";
import type { StripeClients } from "./stripe-clients.js";
import { CircuitBreaker, type BreakerState } from "../resilience/circuit-breaker.js";
import { watchDatabase } from "../resilience/database-watch.js";
import type { Dependency } from "../guard/dependency-fault.js";
import { stripeFault } from "../guard/dependency-fault.js";
import { accountLabel, openFleetBudget } from "../resilience/fleet-budget.js";
import type { StripeGovernance } from "../resilience/governed-stripe-call.js";
import type { FleetShare } from "../resilience/fleet-share.js";
import { RateGovernor } from "../resilience/rate-governor.js";
import { resilienceTelemetry } from "../telemetry/resilience-telemetry.js";
import type { VaultKeyProvider } from "../stripe/vault/key-provider.js";
import { watchVault } from "../resilience/vault-watch.js";

export interface ConsumerResilience {
  governance: StripeGovernance;
  breakers: Record<Dependency, CircuitBreaker>;
  /** The guard's store with every database call watched (PostgreSQL only: PGlite has no server to lose). */
  watchStore(store: GuardStore): GuardStore;
  /** The vault's key fetches through its breaker: a fetch that fails for want of an answer is a wait, not a refusal. */
  watchKeys(keys: VaultKeyProvider): VaultKeyProvider;
  /** Where breaker changes go (the intake's pause); set once intake runs. */
  onBreaker: (dependency: Dependency, state: BreakerState) => void;
  close(): Promise<void>;
}

export interface ResilienceParts {
  options: AnyConsumerOptions;
  settings: ResolvedConsumerSettings;
  stripe: StripeClients;
  owner: string;
  log: (line: string) => void;
}

export async function startResilience(parts: ResilienceParts): Promise<ConsumerResilience> {
  const { options, settings, log } = parts;
  const fleet = await fleetShare(parts);
  const governor = new RateGovernor({
    ...(settings.stripeRequestsPerSecond === undefined ? {} : { ceilingPerSecond: settings.stripeRequestsPerSecond }),
    ...(fleet === undefined ? {} : { fleet }),
    log,
  });
  // Joining a fleet that already learned the budget: start at the fleet's rate, not at full speed.
  if (fleet !== undefined) await bounded(governor.syncNow(), 2_000);
  // Breakers tell whoever listens by then (intake starts after them).
  const listeners: { onBreaker: ConsumerResilience["onBreaker"] } = { onBreaker: () => {} };
  const breaker = (dependency: Dependency, probe: () => Promise<void>) =>
    new CircuitBreaker({ dependency, probe, log, onChange: (state) => listeners.onBreaker(dependency, state), ...options.breakers });
  const breakers: Record<Dependency, CircuitBreaker> = {
    stripe: breaker("stripe", stripeProbe(parts)),
    database: breaker("database", databaseProbe(options)),
    vault: breaker("vault", async () => {
      await parts.stripe.keys.keyFor(currentPeriod(), { expectedTotalCents: expectedTotal(options) });
    }),
  };
  const onPostgres = options.databaseUrl !== undefined;
  const telemetry = resilienceTelemetry(Object.values(breakers), options.meterProvider);
  const resilience: ConsumerResilience = {
    governance: {
      governor,
      breaker: breakers.stripe,
      now: () => performance.now(),
      callWorstCaseMs: worstCaseStripeMs({ timeoutMs: settings.stripeTimeoutMs, maxNetworkRetries: settings.stripeRetries }),
      onThrottled: (limiter) => telemetry.throttled("stripe", limiter),
    },
    breakers,
    watchKeys: (keys) => watchVault(keys, breakers.vault, () => telemetry.throttled("vault", "global")),
    watchStore: (store) => (onPostgres ? watchDatabase(store, breakers.database) : store),
    get onBreaker() {
      return listeners.onBreaker;
    },
    set onBreaker(listener) {
      listeners.onBreaker = listener;
    },
    close: async () => {
      for (const each of Object.values(breakers)) each.close();
      await governor.close();
    },
  };
  return resilience;
}

/**
 * The fleet's shared budget when the replicas share PostgreSQL; a database that is down at start: the replica's own.
 * Per Stripe account, as the key provider names it (a Keybrake account with vault keys, where the consumer's own key
 * is empty), else the consumer's key or API base.
 */
async function fleetShare(parts: ResilienceParts): Promise<FleetShare | undefined> {
  const { options, settings } = parts;
  if (options.databaseUrl === undefined || options.fleetBudget === false) return undefined;
  try {
    return await openFleetBudget({
      databaseUrl: options.databaseUrl,
      ...(options.databasePassword === undefined ? {} : { password: options.databasePassword }),
      account: parts.stripe.keys.account ?? accountLabel(options.stripe.apiKey || options.stripe.apiBase || "stripe"),
      member: parts.owner,
      ...(settings.stripeRequestsPerSecond === undefined ? {} : { ceilingPerSecond: settings.stripeRequestsPerSecond }),
      log: parts.log,
    });
  } catch (error) {
    parts.log(`Stripe budget: cannot share it through the database (${error instanceof Error ? error.message : String(error)}); this replica adapts alone`);
    return undefined;
  }
}

/** One cheap read with the current period's key: any answer but an outage (a 429 and a refusal included) means Stripe is up. */
function stripeProbe(parts: ResilienceParts): () => Promise<void> {
  return async () => {
    const key = await parts.stripe.keys.keyFor(currentPeriod(), { expectedTotalCents: expectedTotal(parts.options) });
    try {
      await parts.stripe.stripeFor(key).paymentIntents.list({ limit: 1 });
    } catch (error) {
      if (stripeFault(error)?.cause === "outage") throw error;
    }
  };
}

/** `SELECT 1` on a fresh connection, 5 s at most: a pool's broken connections say nothing about the server now. */
function databaseProbe(options: AnyConsumerOptions): () => Promise<void> {
  return async () => {
    if (options.databaseUrl === undefined) return;
    const base =
      options.databasePassword === undefined
        ? { connectionString: options.databaseUrl }
        : { ...connectionParams(options.databaseUrl), password: options.databasePassword };
    const { Client } = await loadPg();
    const client = new Client({ ...base, connectionTimeoutMillis: 5_000, query_timeout: 5_000 });
    // Its failures reach the probe through connect and query; the listener keeps a cut mid-probe from crashing.
    client.on("error", () => {});
    try {
      await client.connect();
      await client.query("SELECT 1");
    } finally {
      await client.end().catch(() => undefined);
    }
  };
}

function currentPeriod(): string {
  return new Date().toISOString().slice(0, 7);
}

function expectedTotal(options: AnyConsumerOptions): number {
  const expected = options.expectedPeriodTotalCents ?? options.periodCapCents;
  return typeof expected === "function" ? expected(currentPeriod()) : (expected ?? 1);
}
