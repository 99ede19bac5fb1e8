// What an operator's cron does for the generated consumer once the fleet has stopped: some minutes later (past the
// guard's leases), run the reconciler over the contender's database until no stale pending billing is left.
import type { PGlite } from "@electric-sql/pglite";
import type { MeterProvider } from "@opentelemetry/api";
import { type StripeSettings, EnvironmentKeyProvider, Guard } from "../../runtime/index.js";
import { createBillingTelemetry } from "../../runtime/telemetry/index.js";
import { reconcile, stripeAccess, type StripeAccess } from "../../runtime/operator/index.js";
import type { AdjustableClock } from "../../sandbox/index.js";

export interface ReconcilerRun {
  database: PGlite;
  /** The contender's PostgreSQL (a degraded-database scenario), in place of `database`. */
  databaseUrl?: string;
  clock: AdjustableClock;
  stripe: StripeSettings;
  periodCapCents?: number;
  /** The contender's meter provider: the records the reconciler settles count with the consumer's. */
  meterProvider?: MeterProvider;
  log(line: string): void;
}

/** The cron runs this long after the fleet stopped: every lease a killed replica held has lapsed by then. */
const cronDelayMs = 15 * 60_000;
const maxRuns = 50;

/** `chargeguard reconcile` as a cron runs it: until nothing stale is left, or a run finishes nothing. */
export async function runReconciler(run: ReconcilerRun): Promise<void> {
  run.clock.advance(cronDelayMs);
  const stripe = operatorStripe(run.stripe);
  const guard = await Guard.open({
    ...databaseOf(run),
    clock: run.clock,
    ...(run.periodCapCents !== undefined ? { periodCapCents: run.periodCapCents } : {}),
  });
  const telemetry = run.meterProvider ? createBillingTelemetry({ meterProvider: run.meterProvider }) : undefined;
  try {
    for (let i = 0; i < maxRuns; i++) {
      const report = await reconcile({ guard, stripe, clock: run.clock, limit: 500, ...(telemetry ? { telemetry } : {}) });
      if (report.examined === 0) return;
      run.log(
        `reconciler: examined ${report.examined}, completed ${report.completed}, declined ${report.declined}, ` +
          `unverifiable ${report.unverifiable}, refused ${report.refused}, still unknown ${report.stillUnknown}`,
      );
      if (report.completed + report.declined + report.settledMeanwhile === 0) return;
    }
  } finally {
    await guard.close();
  }
}

/** The consumer's way to Stripe (its key, its API base): the reconciler never has one of its own. */
function operatorStripe(settings: StripeSettings): StripeAccess {
  return stripeAccess({
    keys: new EnvironmentKeyProvider({ apiKey: settings.apiKey, warn: () => undefined }),
    timeoutMs: settings.timeoutMs ?? 30_000,
    maxNetworkRetries: 2,
    ...(settings.apiBase === undefined ? {} : { apiBase: settings.apiBase }),
  });
}

function databaseOf(run: ReconcilerRun): { databaseUrl: string } | { pglite: PGlite } {
  return run.databaseUrl === undefined ? { pglite: run.database } : { databaseUrl: run.databaseUrl };
}
