// What Stripe's windows may leave after a run, checked once the fleet has stopped. Recovery reaches every record: the
// operator's cron run with `--limit 1` as many times as there are stale pending records (plus one) leaves none of them
// pending, so records it cannot settle never keep their place ahead of newer ones; each record it held unsettleable
// is listed by the operator's API (Guard.unsettleable, `chargeguard reconcile --unsettleable`) and was held past
// Stripe's 24 h window, never inside it (where a replay could still settle it). And usage too old for Stripe (a meter
// event delivered more than 35 days after it happened) may go unbilled only dead-lettered for it.
import type { GuardRecord } from "../../../runtime/guard/index.js";
import { stripeKeyWindowMs } from "../../../runtime/flows/index.js";
import { reconcile } from "../../../runtime/operator/index.js";
import type { ModelEvent } from "./model-invariants.js";
import { modelStripeAccess, openModelGuard } from "./model-reconciler.js";
import { modelTimings, type ModelWorld } from "./model-world.js";

/** Stripe takes a meter event's timestamp up to 35 days back (sandbox/stripe/billing-meters.ts enforces it). */
export const meterWindowMs = 35 * 86_400_000;

const recordName = (record: GuardRecord) => `${record.scope} ${JSON.stringify(record.key)}`;

/** The stale pending records, reconciled one per run; returns the violations found. */
export async function recoveryReachesEveryRecord(world: ModelWorld): Promise<string[]> {
  // Every lease of the stopped fleet lapses, as it has by the time an operator's cron runs.
  world.sandbox.clock.advance(modelTimings.leaseMs + 500);
  const guard = await openModelGuard(world);
  const violations: string[] = [];
  try {
    const stale = await guard.stalePending({ limit: 1_000 });
    const stripe = modelStripeAccess(world);
    for (let run = 0; run <= stale.length; run++) {
      const report = await reconcile({ guard, stripe, clock: world.sandbox.clock, limit: 1, owner: `model-${world.run}-cron` });
      if (report.examined === 0) break;
    }
    const left = new Set((await guard.stalePending({ limit: 1_000 })).map(recordName));
    for (const record of stale.filter((r) => left.has(recordName(r)))) {
      violations.push(`record ${recordName(record)} still pending after ${stale.length + 1} reconciler runs of --limit 1 over ${stale.length} stale records: recovery cannot reach it`);
    }
    const held = await guard.unsettleable({ limit: 1_000 });
    const rows = await world.query<{ n: string | number }>("SELECT count(*) AS n FROM guard_records WHERE state = 'unsettleable'");
    const count = Number(rows[0]?.n ?? 0);
    if (count !== held.length) violations.push(`${count} records unsettleable, and the operator's list (Guard.unsettleable) shows ${held.length}`);
    for (const record of held) {
      const age = record.updatedAt.getTime() - record.createdAt.getTime();
      if (age < stripeKeyWindowMs) violations.push(`record ${recordName(record)} held unsettleable ${Math.round(age / 60_000)} min after its claim, inside Stripe's 24 h window (${record.declineReason ?? "no reason"})`);
    }
  } finally {
    await guard.close();
  }
  return violations;
}

/**
 * A meter event Stripe can no longer take: its usage more than 35 days before now, and dead-lettered InvalidEvent
 * naming the 35 days (Stripe refuses such a timestamp; the operator sees it in the dead letters).
 */
export function tooOldToMeter(world: ModelWorld, event: ModelEvent, letter: { deadLetterReason?: string; deadLetterDescription?: string } | undefined): boolean {
  const at = event.body.at;
  if (world.cell.flow !== "meter-event" || at === undefined || at * 1000 >= world.sandbox.clock.now() - meterWindowMs) return false;
  return letter?.deadLetterReason === "InvalidEvent" && (letter.deadLetterDescription ?? "").includes("more than 35 days in the past");
}
