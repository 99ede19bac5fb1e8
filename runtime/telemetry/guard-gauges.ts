// Observable gauges read from the guard's tables at each collection: spend limit, usage and utilization per
// (period, currency), pending billings and the oldest one's age.
import type { GuardHealth } from "../guard/health.js";
import type { Instruments } from "./instruments.js";
import { attributeNames as attr } from "./metric-names.js";

/** Registers the gauges' callback on the instruments' meter; returns the function that stops observing. */
export function observeGuardHealth(instruments: Instruments, health: () => Promise<GuardHealth>): () => void {
  const { spendLimit, spendUsage, spendUtilization, pendingBillings, oldestPendingAge, meter } = instruments;
  const observables = [spendLimit, spendUsage, spendUtilization, pendingBillings, oldestPendingAge];
  const callback = async (observer: Parameters<Parameters<typeof meter.addBatchObservableCallback>[0]>[0]) => {
    let snapshot: GuardHealth;
    try {
      snapshot = await health();
    } catch {
      return; // the guard is closing or unreachable: no reading beats a wrong one
    }
    observer.observe(pendingBillings, snapshot.pendingBillings);
    observer.observe(oldestPendingAge, snapshot.oldestPendingAgeSeconds ?? 0);
    for (const spend of snapshot.spend) {
      const attributes = { [attr.billingPeriod]: spend.billingPeriod, [attr.currency]: spend.currency };
      observer.observe(spendUsage, spend.usageCents, attributes);
      if (spend.limitCents === null) continue;
      observer.observe(spendLimit, spend.limitCents, attributes);
      if (spend.limitCents > 0) observer.observe(spendUtilization, spend.usageCents / spend.limitCents, attributes);
    }
  };
  meter.addBatchObservableCallback(callback, observables);
  return () => meter.removeBatchObservableCallback(callback, observables);
}
