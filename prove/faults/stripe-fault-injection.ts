// Puts the plan's Stripe faults into the emulator: each scheduled event's first charge request meets its fault.
// Requests are recognised by customer and amount (unique per event), so it works for any consumer's request shape.
import type { StripeFaultRequest, StripeFaults } from "../../sandbox/index.js";
import type { FaultPlan, StripeFault } from "./faults.js";
import type { HarnessSettings } from "../run/settings.js";
import type { WorkloadEvent } from "../workload/workload.js";

/** The requests that move money by default: PaymentIntents (create, confirm) and the legacy Charges API the seeds use. */
const chargePaths = /^\/v1\/(payment_intents|charges)$/;

export interface StripeFaultInjection {
  faults: StripeFaults;
  plan: FaultPlan;
  settings: HarnessSettings;
  /** The workload event a charge request is for, if any. */
  eventOf(request: StripeFaultRequest): WorkloadEvent | undefined;
  /** Called when a slow call for this event has started (the lock is to lapse meanwhile). */
  onSlowCall(event: WorkloadEvent): void;
  /** The flow's money-moving requests (prove/workload/flows.ts); default PaymentIntents and Charges. */
  moneyPaths?: RegExp;
  /** Requests `eventOf` must see without a fault (an invoice's items name the customer and amount its `pay` omits). */
  observePaths?: RegExp;
  /** Told once per event a fault met (the report counts the faults that hit). */
  onHit?(fault: StripeFault): void;
}

/**
 * The SDK reconnects once after a dropped connection even with retries off, and that retry replays the saved
 * response: a drop must hit both for the consumer to see `StripeConnectionError`.
 */
const dropsPerFault = 2;

export function injectStripeFaults({ faults, plan, settings, eventOf, onSlowCall, moneyPaths, observePaths, onHit }: StripeFaultInjection): void {
  if (plan.stripe.size === 0 && plan.scaleIns.size === 0) return;
  if (observePaths) faults.inject({ method: "POST", path: observePaths, action: "latency", ms: 0, when: (request) => (eventOf(request), false) });
  const hits = new Map<string, number>();
  /** True for the first `times` requests of an event scheduled for this fault. */
  const scheduled = (fault: StripeFault, times = 1) => (request: StripeFaultRequest): boolean => {
    const event = eventOf(request);
    if (!event || plan.stripe.get(event.id) !== fault) return false;
    const count = (hits.get(event.id) ?? 0) + 1;
    if (count > times) return false;
    hits.set(event.id, count);
    if (count === 1) onHit?.(fault);
    if (fault === "slow-stripe") onSlowCall(event);
    return true;
  };
  const match = { method: "POST", path: moneyPaths ?? chargePaths } as const;
  // scale-in: the event's first charge request is slow, so it is in flight while its replica is told to stop.
  const scaleInHit = new Set<string>();
  const slowForScaleIn = (request: StripeFaultRequest): boolean => {
    const event = eventOf(request);
    if (!event || !plan.scaleIns.has(event.id) || scaleInHit.has(event.id)) return false;
    scaleInHit.add(event.id);
    return true;
  };
  faults.inject({ ...match, action: "latency", ms: settings.scaleInStripeMs, when: slowForScaleIn });
  faults.inject({ ...match, action: "latency", ms: settings.slowStripeMs, when: scheduled("slow-stripe") });
  faults.inject({ ...match, action: "commitThenDrop", when: scheduled("commit-drop", dropsPerFault) });
  // Before commit: nothing executed and nothing saved under the key, so a later attempt with the same key runs.
  faults.inject({ ...match, action: "serverError", saved: false, when: scheduled("stripe-500") });
  faults.inject({ ...match, action: "conflict", when: scheduled("stripe-409") });
}
