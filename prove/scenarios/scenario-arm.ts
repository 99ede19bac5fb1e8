// A degraded scenario armed against one contender's sandbox: the dependency's stand-in set up (the vault emulator, the
// database behind its fault proxy), the window's timers started with the fleet, the messages held back sent halfway
// through it, and the figures read once the queue has drained.
import { KeybrakeKeyProvider } from "../../runtime/index.js";
import { startKeybrakeEmulator, type AdjustableClock, type KeybrakeEmulator } from "../../sandbox/index.js";
import type { BoundedCleanup } from "../contender/bounded-cleanup.js";
import { sandboxStripeKey, type ContenderSandbox } from "../contender/contender-sandbox.js";
import type { ContenderKind } from "../run/run-types.js";
import { scaled, scenarioContextFor } from "./scenario-context.js";
import { startScenarioDatabase, type ScenarioDatabase } from "./scenario-database.js";
import { scenarioSpecs, virtualTimeFactor, wallMsOf, type ScenarioName, type ScenarioSpec } from "./scenarios.js";
import type { Workload } from "../workload/workload.js";
import { scenarioFigures, type DegradationCounts, type ScenarioFigures } from "./scenario-figures.js";

export interface ScenarioRun {
  name: ScenarioName;
  /** A PostgreSQL server's URL, for the database scenarios. */
  databaseUrl?: string;
}

export interface ArmedScenario {
  spec: ScenarioSpec;
  /** Added to the replicas' context (scaled durations; the vault's key provider; the database behind the proxy). */
  context: Record<string, unknown>;
  /** For the database scenarios: where the judgement reads the records. */
  database?: ScenarioDatabase;
  /** Starts the window's timers; `sendDuring` sends the messages held back for its middle. */
  begin(sendDuring: () => Promise<void>): void;
  /** True until the dependency is back and every held-back message was sent: the queue cannot be called settled before. */
  busy(): boolean;
  /** When the dependency came back (Date.now()); undefined while the window lasts. */
  recoveredAt(): number | undefined;
  /** The scenario's figures, once the queue drained at `drainedAt` (Date.now()). */
  figures(drainedAt: number, replicas: number, pausedSeconds: number | undefined, lastAttemptAt: number | undefined): ScenarioFigures;
}

export interface ScenarioTargets {
  run: ScenarioRun;
  kind: ContenderKind;
  label: string;
  sandbox: Pick<ContenderSandbox, "stripe">;
  workload: Workload;
  clock: AdjustableClock;
  cleanup: BoundedCleanup;
}

export async function armScenario(targets: ScenarioTargets): Promise<ArmedScenario> {
  const spec = scenarioSpecs[targets.run.name];
  const context: Record<string, unknown> = scenarioContextFor(targets.kind);
  let database: ScenarioDatabase | undefined;
  let vault: KeybrakeEmulator | undefined;
  if (spec.dependency === "database" || (spec.postgresWhenGiven === true && targets.run.databaseUrl !== undefined)) {
    if (targets.run.databaseUrl === undefined) throw new Error(`${spec.name} needs PostgreSQL: run under node scripts/with-postgres.mjs, or give --database-url`);
    database = await startScenarioDatabase(targets.run.databaseUrl, `${spec.name}_${targets.label}`, targets.cleanup);
    // The consumers on PostgreSQL through the proxy, not on the harness's PGlite.
    Object.assign(context, { databaseUrl: database.consumerUrl, pglite: undefined });
  }
  if (spec.dependency === "vault") {
    vault = await startKeybrakeEmulator({ stripeApiBase: targets.sandbox.stripe.apiBase, stripeApiKey: sandboxStripeKey, clock: targets.clock });
    targets.cleanup.add("vault emulator", () => vault!.stop());
    // One provider for the fleet (replicas in one process); its key lifetime and fetch timeout scaled like the window.
    const keyProvider = new KeybrakeKeyProvider({
      baseUrl: vault.baseUrl,
      apiKey: vault.apiKey,
      clock: targets.clock,
      keyLifetimeMs: scaled(3_600_000),
      fetchTimeoutMs: scaled(10_000, 1_000),
    });
    const totals = targets.workload.periodTotalsCents;
    Object.assign(context, { keyProvider, expectedPeriodTotalCents: (period: string) => 2 * Math.max(10_000, totals.get(period) ?? 0) });
  }
  const degrade = degrader(spec, targets.sandbox, database, vault);
  const neededRequests = targets.workload.events.filter((event) => event.expected !== "dead-lettered").length;
  return windowed(spec, context, database, degrade, neededRequests);
}

interface Degrader {
  start(): void;
  /** Halfway through the window (the vault turns from unavailable to throttled). */
  half(): void;
  end(): void;
  counts(): DegradationCounts;
}

function degrader(spec: ScenarioSpec, sandbox: Pick<ContenderSandbox, "stripe">, database: ScenarioDatabase | undefined, vault: KeybrakeEmulator | undefined): Degrader {
  const { degradation } = sandbox.stripe;
  const nothing = () => {};
  switch (spec.name) {
    case "stripe-outage":
      return { start: () => degradation.outage({ answer: 503 }), half: nothing, end: () => degradation.endOutage(), counts: () => ({ metDegradation: degradation.stats.outageRefused }) };
    case "stripe-rate-limit":
      return {
        start: () => degradation.rateLimit(spec.rateLimit),
        half: nothing,
        end: nothing,
        counts: () => ({ metDegradation: degradation.stats.throttled, admitted: degradation.stats.admitted }),
      };
    case "database-failover":
    case "database-hang": {
      const proxy = database!.proxy;
      const before = { ...proxy.stats };
      // Idle connections cut for the whole run, as Azure's gateway and NAT do (scaled like the window).
      if (spec.idleCutVirtualMs !== undefined) proxy.idleCut({ afterMs: wallMsOf(spec.idleCutVirtualMs) });
      return {
        start: () => proxy.mode(spec.name === "database-hang" ? "hang" : "refuse"),
        half: nothing,
        end: () => proxy.mode("pass", { cut: spec.endsWithCut === true }),
        counts: () => ({
          metDegradation: proxy.stats.refused - before.refused + (spec.name === "database-hang" ? proxy.stats.accepted - before.accepted : 0),
          connectionsCut: proxy.stats.cut - before.cut,
          idleCut: proxy.stats.idleCut - before.idleCut,
        }),
      };
    }
    case "vault-outage":
      return {
        start: () => vault!.degradeKeyService("unavailable"),
        half: () => vault!.degradeKeyService("throttled"),
        end: () => vault!.degradeKeyService("up"),
        counts: () => ({ metDegradation: vault!.keyServiceStats.unavailable + vault!.keyServiceStats.throttled }),
      };
  }
}

function windowed(spec: ScenarioSpec, context: Record<string, unknown>, database: ScenarioDatabase | undefined, degrade: Degrader, neededRequests: number): ArmedScenario {
  const timers: NodeJS.Timeout[] = [];
  const at = (ms: number, action: () => void) => {
    const timer = setTimeout(action, ms);
    timer.unref();
    timers.push(timer);
  };
  let began = 0;
  let recoveredAt: number | undefined;
  let sendsDone = spec.sentDuringShare <= 0;
  let countsAtEnd: DegradationCounts | undefined;
  const startMs = wallMsOf(spec.startsAtVirtualMs);
  const windowMs = wallMsOf(spec.lastsVirtualMs);
  return {
    spec,
    context,
    ...(database ? { database } : {}),
    begin(sendDuring) {
      began = Date.now();
      if (windowMs === 0) {
        // A degradation for the whole run (the rate limit): it is "back" from the start, for the drain's figures.
        degrade.start();
        recoveredAt = began;
        return;
      }
      at(startMs, () => degrade.start());
      at(startMs + windowMs / 2, () => {
        degrade.half();
        if (!sendsDone) void sendDuring().finally(() => (sendsDone = true));
      });
      at(startMs + windowMs, () => {
        countsAtEnd = degrade.counts();
        degrade.end();
        recoveredAt = Date.now();
      });
    },
    busy: () => recoveredAt === undefined || !sendsDone,
    recoveredAt: () => recoveredAt,
    figures(drainedAt, replicas, pausedSeconds, lastAttemptAt) {
      // What met the window, as it ended; the connections cut (at the recovery, for being idle), to the drain.
      const now = degrade.counts();
      const counts = windowMs === 0 ? now : { ...now, metDegradation: (countsAtEnd ?? now).metDegradation };
      return scenarioFigures({ spec, counts, began, recoveredAt, drainedAt, windowMs, replicas, pausedSeconds, factor: virtualTimeFactor, neededRequests, lastAttemptAt });
    },
  };
}
