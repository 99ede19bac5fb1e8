// The real system one model run drives: two in-process replicas of `startBillingConsumer` on a fresh queue and a
// fresh guard database (a PGlite, or a scratch database on PostgreSQL behind the fault proxy), the shared emulators
// (Service Bus, Stripe, Keybrake behind a cap-refusing front), and the faults the commands inject. Replicas are
// killed at a step through the step hook (as test/support/kill-at.ts does) and restarted without blocking, so a
// restart during a database outage waits for the database as a real replica would.
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { KeybrakeKeyProvider, startBillingConsumer, StartStoppedSignal, type RunningConsumer } from "../../../runtime/index.js";
import type { ConsumerStep, StepHook } from "../../../runtime/handler/consumer-steps.js";
import { startDatabaseFaultProxy, startKeybrakeEmulator, type DatabaseFaultProxy, type KeybrakeEmulator } from "../../../sandbox/index.js";
import { createScratchDatabase } from "../guard/databases.js";
import { consumerOptionsFor, startBillingSandbox, type BillingSandbox } from "../support/billing-sandbox.js";
import { cellName, flowOptions, moneyPaths, usesVault, vaultEndpoints, type ModelCell } from "./model-cells.js";
import { restrictFlowKey } from "./restricted-key.js";
import { startVaultFront, type VaultFront } from "./vault-front.js";
import { DEFAULT_STRIPE_BUDGET } from "../../../tuning/queue-tuning.js";

/** The emulators every run of a file shares (a fresh queue, database, customers and vault budget per run keep runs apart). */
export interface ModelInfra {
  sandbox: BillingSandbox;
  keybrake: KeybrakeEmulator;
  front: VaultFront;
  /** The PostgreSQL server's admin URL (scratch databases are made on it); absent when no cell needs it. */
  postgresUrl: string | undefined;
  stop(): Promise<void>;
}

export async function startModelInfra(postgresUrl: string | undefined): Promise<ModelInfra> {
  const sandbox = await startBillingSandbox();
  const keybrake = await startKeybrakeEmulator({ stripeApiBase: sandbox.stripe.apiBase, clock: sandbox.clock });
  const money = Object.values(moneyPaths);
  const front = await startVaultFront(keybrake.baseUrl, (method, path) => method === "POST" && money.some((pattern) => pattern.test(path)));
  return {
    sandbox,
    keybrake,
    front,
    postgresUrl,
    async stop() {
      await front.stop();
      await keybrake.stop();
      await sandbox.stop();
    },
  };
}

/** The model's timings, in one place: short leases and timeouts so faults are met and ridden out within seconds. */
export const modelTimings = {
  /**
   * Holds one Stripe call's worst case (the timeout twice, the SDK's retry and its backoff: 3.5 s) with 1.5 s to wait
   * for the governor's next token, as the tuning sizes a production lease. At 3 s no call could start past a wait
   * once the lease's last start was read on the guard's clock: a throttled invoice billing (many calls) was told "no
   * room before the lease ends" on every delivery and never billed (the matrix, invoice/postgres/plain).
   */
  leaseMs: 5_000,
  stripeTimeoutMs: 1_500,
  /** A Stripe answer held this long times out at the client (and the request still executes at Stripe). */
  stripeLatencyMs: 2_000,
  keyLifetimeMs: 1_500,
  databaseHangMs: 2_000,
};

/**
 * The spend caps that bind: each of these currencies is capped at `capCents` per period (the events' amounts run
 * 10,000-500,000, so a period's second or third billing, or one large one alone, is refused SpendCapExceeded).
 * `uncapped` bills under the default cap that never binds: the fresh demand after the faults, which must be billed
 * (the fault commands' own billings in it are small: the demand nearly fills its budget at the vault).
 * `vaultExpectedCents` sizes the vault's keys (each (period, currency)'s budget at the vault: 660,000 a day): above
 * every cap the guard holds and the demand's, so the vault never refuses what the guard allows, while a vault that
 * counted every currency of a period against one budget would refuse a run's usd, eur and gbp together.
 */
export const modelSpendCaps = { currencies: ["usd", "eur"] as const, capCents: 400_000, uncapped: "gbp", defaultCapCents: 10_000_000, vaultExpectedCents: 600_000 };

/** Freezes the first flow of `replica` that reaches `step`, for good: that replica is "killed" there. */
class KillSwitch {
  #armed: { replica: number; step: ConsumerStep; killed: () => void } | undefined;

  arm(replica: number, step: ConsumerStep, killed: () => void): void {
    this.#armed = { replica, step, killed };
  }

  disarm(): void {
    this.#armed = undefined;
  }

  get armed(): boolean {
    return this.#armed !== undefined;
  }

  hookFor(replica: number): StepHook {
    return (step) => {
      const armed = this.#armed;
      if (!armed || armed.replica !== replica || armed.step !== step) return;
      this.#armed = undefined;
      armed.killed();
      return new Promise<void>(() => {});
    };
  }
}

type Store = { kind: "pglite"; pglite: PGlite } | { kind: "postgres"; url: string; drop(): Promise<void>; proxy: DatabaseFaultProxy };

export class ModelWorld {
  readonly replicas: (Promise<RunningConsumer | undefined> | undefined)[] = [undefined, undefined];
  readonly kill = new KillSwitch();
  readonly logs: string[] = [];
  /**
   * What must never happen: a replica that could not start or ended on its own (no process exit but by signal: a
   * replica started into a database outage waits for it), an unhandled rejection or exception in the fleet.
   */
  readonly failures: string[] = [];
  readonly queue: string;
  #started = 0;
  /** Each replica's stop signal while it starts (the platform's SIGTERM to a replica still waiting for its database). */
  readonly #stops: (AbortController | undefined)[] = [undefined, undefined];
  #stopping = false;

  private constructor(readonly infra: ModelInfra, readonly cell: ModelCell, readonly store: Store, readonly run: number) {
    this.queue = infra.sandbox.queue(5_000);
  }

  static async open(infra: ModelInfra, cell: ModelCell, run: number): Promise<ModelWorld> {
    let store: Store;
    if (cell.store === "pglite") {
      // One embedded database per file (creating one costs seconds), emptied for each run: migrations start from nothing.
      const pglite = infra.sandbox.pglite;
      await pglite.exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
      store = { kind: "pglite", pglite };
    } else {
      if (infra.postgresUrl === undefined) throw new Error(`cell ${cellName(cell)} needs PostgreSQL and the model was started without a server`);
      const scratch = await createScratchDatabase(infra.postgresUrl);
      const target = new URL(scratch.url);
      const proxy = await startDatabaseFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
      store = { kind: "postgres", url: scratch.url, drop: scratch.drop, proxy };
    }
    const world = new ModelWorld(infra, cell, store, run);
    restrictFlowKey(world);
    world.startReplica(0);
    world.startReplica(1);
    await Promise.all(world.replicas);
    return world;
  }

  get sandbox(): BillingSandbox {
    return this.infra.sandbox;
  }

  log(line: string): void {
    if (process.env.CHARGEGUARD_MODEL_TRACE) process.stderr.write(`[${new Date().toISOString().slice(11, 23)}] ${line}\n`);
    this.logs.push(line);
    if (this.logs.length > 400) this.logs.splice(0, this.logs.length - 400);
  }

  /** Starts replica `i` in the background (a start may wait for a database that is down); failures are recorded. */
  startReplica(i: number): void {
    this.replicas[i] = this.#start(i);
  }

  #start(i: number): Promise<RunningConsumer | undefined> {
    const generation = ++this.#started;
    const stop = new AbortController();
    this.#stops[i] = stop;
    // A crash's restart that comes while the fleet stops is stopped too (it would wait for a refusing database).
    if (this.#stopping) stop.abort();
    const { flow: _flow, event: _event, hook: _hook, ...shared } = consumerOptionsFor(this.sandbox, this.queue);
    const { keybrake, front } = this.infra;
    return startBillingConsumer({
      ...shared,
      ...flowOptions(this.cell.flow),
      // The SDK's own retries as the template ships them (a timed-out or cut request retried inside one call); the
      // timeout short so a held answer is met within the run.
      // Vault keys alone leave STRIPE_API_KEY empty; "keybrake+plain" keeps the plain key set beside them.
      stripe: {
        ...shared.stripe,
        ...(this.cell.vault === "keybrake" ? { apiKey: "" } : {}),
        timeoutMs: modelTimings.stripeTimeoutMs,
        maxNetworkRetries: DEFAULT_STRIPE_BUDGET.maxNetworkRetries,
      },
      ...(this.store.kind === "pglite"
        ? { pglite: this.store.pglite }
        : {
            databaseUrl: this.store.proxy.urlFor(this.store.url),
            databaseTimeouts: { connectionTimeoutMillis: 1_000, query_timeout: 1_500, statement_timeout: 1_500 },
          }),
      ...(usesVault(this.cell)
        ? {
            keyProvider: new KeybrakeKeyProvider({
              baseUrl: front.baseUrl,
              apiKey: keybrake.apiKey,
              clock: this.sandbox.clock,
              keyLifetimeMs: modelTimings.keyLifetimeMs,
              fetchTimeoutMs: 1_000,
              allowedEndpoints: vaultEndpoints[this.cell.flow],
              // The vault is shared by the file's runs: each run's fleet spends its own budget, as a second consumer
              // on one vault account does (one budget across runs would carry earlier runs' spend into this one's cap).
              budgetName: `model-${this.run}`,
            }),
          }
        : {}),
      periodCapCents: modelSpendCaps.defaultCapCents,
      periodCaps: Object.fromEntries(modelSpendCaps.currencies.map((currency) => [currency, modelSpendCaps.capCents])),
      expectedPeriodTotalCents: modelSpendCaps.vaultExpectedCents,
      leaseMs: modelTimings.leaseMs,
      maxConcurrentCalls: 4,
      breakers: { firstProbeDelayMs: 300, maxProbeDelayMs: 1_000 },
      // The pause after Stripe refuses the key probes as often as the breakers do, so it ends within the drain's bound.
      configurationFaultProbe: { firstProbeDelayMs: 300, maxProbeDelayMs: 1_000 },
      owner: `model-${this.run}-r${i}-g${generation}`,
      hook: this.kill.hookFor(i),
      log: (line) => this.log(`r${i}g${generation} ${line}`),
      signal: stop.signal,
    }).catch((error: unknown) => {
      // Stopped by the harness while it waited for the database: the platform's SIGTERM, not a failure.
      if (stop.signal.aborted && error instanceof StartStoppedSignal) return undefined;
      this.failures.push(`replica ${i} (generation ${generation}) ended on its own at start (no exit but by signal): ${String(error)}`);
      return undefined;
    });
  }

  /**
   * Kills replica `i` at `step`: the next of its flows to reach the step freezes there for good, and the replica is
   * closed and a fresh one started in its place (in the background, as a platform restarts a container).
   */
  armCrash(i: number, step: ConsumerStep): void {
    this.kill.arm(i, step, () => {
      this.log(`model: replica ${i} killed at ${step}`);
      const old = this.replicas[i];
      this.replicas[i] = (async () => {
        await (await old)?.close();
        return this.#start(i);
      })();
    });
  }

  /**
   * Every injected fault ended: Stripe answers (the flow's restricted key stays restricted), the broker is not busy,
   * the vault issues keys and refuses no spend, the database answers.
   */
  heal(): void {
    const { sandbox, keybrake, front } = this.infra;
    sandbox.stripe.faults.clear();
    restrictFlowKey(this);
    sandbox.serviceBus.faults.clear();
    keybrake.degradeKeyService("up");
    front.capRefusing = false;
    if (this.store.kind === "postgres") this.store.proxy.mode("pass");
  }

  /** Reads the guard's database directly (never through the fault proxy). */
  async query<T>(sql: string): Promise<T[]> {
    if (this.store.kind === "pglite") return (await this.store.pglite.query<T>(sql)).rows;
    const client = new pg.Client({ connectionString: this.store.url });
    await client.connect();
    try {
      return (await client.query(sql)).rows as T[];
    } finally {
      await client.end();
    }
  }

  async stopReplicas(): Promise<void> {
    this.kill.disarm();
    // A replica still waiting for a database that refuses would never finish starting: stop the wait first.
    this.#stopping = true;
    for (const stop of this.#stops) stop?.abort();
    try {
      for (const [i, replica] of this.replicas.entries()) {
        await (await replica)?.close();
        this.replicas[i] = undefined;
      }
    } finally {
      this.#stopping = false;
    }
  }

  async close(): Promise<void> {
    this.heal();
    await this.stopReplicas();
    this.infra.sandbox.stripe.faults.clear();
    if (this.store.kind === "postgres") {
      await this.store.proxy.stop();
      await this.store.drop();
    }
  }
}
