// The fault catalogue and the seeded schedule: which event meets which fault. Every contender gets the same plan,
// so a difference in outcome is the consumer's doing, not luck.
import { consumerSteps, type ConsumerStep } from "../../runtime/handler/index.js";
import { seededRandom } from "../workload/random.js";
import type { Workload } from "../workload/workload.js";

export const faultCatalogue = {
  "renew-busy": "lock renewal answered ServerBusy (a share of all renew-lock requests)",
  "slow-stripe": "Stripe slower than the lock (2.4 x LockDuration) while the lock lapses mid-call, as when renewal meets ServerBusy",
  "commit-drop": "Stripe commits the PaymentIntent, then drops the connection",
  "stripe-500": "Stripe answers 500 before committing",
  "stripe-409": "Stripe answers 409 idempotency_key_in_use (a request with that key still in flight)",
  "kill-after-claim": "the replica is killed right after the claim, then a fresh one starts",
  "kill-after-stripe": "the replica is killed right after the Stripe call, then a fresh one starts",
  "kill-after-record": "the replica is killed right after the record write, then a fresh one starts",
  "kill-before-complete": "the replica is killed right before completing the message, then a fresh one starts",
  "scale-in":
    "Container Apps scales the replica in while this charge is in flight (Stripe slow): SIGTERM, SIGKILL after the grace period; a fresh replica replaces it once it is gone",
  "dlq-resubmit": "after the queue drains, the clock moves 25 h (past Stripe's key window) and an operator resubmits the dead-letter queue with new messageIds",
  "nightly-resend": "25 h later the producer's nightly reconciliation re-sends, with new messageIds, every valid event that has no billing_records row (a contender that keeps no billing_records gets nothing re-sent)",
  "spend-cap": "a per-period spend cap just above the largest period's expected total",
} as const;

export type FaultName = keyof typeof faultCatalogue;
/** How many times each fault hit one contender (a planned fault may not: a copy billed before it, a kill not reached). */
export type FaultHits = Partial<Record<FaultName, number>>;
export const faultNames = Object.keys(faultCatalogue) as FaultName[];

export type StripeFault = "slow-stripe" | "commit-drop" | "stripe-500" | "stripe-409";
const stripeFaults: readonly StripeFault[] = ["slow-stripe", "commit-drop", "stripe-500", "stripe-409"];

export const killFaults: Record<ConsumerStep, FaultName> = {
  afterClaim: "kill-after-claim",
  afterStripe: "kill-after-stripe",
  afterRecord: "kill-after-record",
  beforeComplete: "kill-before-complete",
};

export interface FaultPlan {
  faults: FaultName[];
  /** The first PaymentIntent request for each of these events meets the fault. */
  stripe: Map<string, StripeFault>;
  /** The first replica to reach this step with this event is killed there. */
  kills: Map<string, ConsumerStep>;
  /**
   * The first replica to reach a step boundary with one of these events is scaled in there (SIGTERM, then SIGKILL
   * after the grace period); the event's first charge request is slow, so it is in flight meanwhile.
   */
  scaleIns: Set<string>;
  /** Share of renew-lock requests answered ServerBusy (0 when off). */
  renewBusyRate: number;
  resubmitDeadLetters: boolean;
  resendUnrecorded: boolean;
  /** Per-period cap handed to every contender; undefined when off. */
  periodCapCents?: number;
}

export interface FaultPlanOptions {
  faults: readonly FaultName[];
  seed: number;
  /** Share of valid events that meet each per-event fault. */
  eventRate?: number;
  renewBusyRate?: number;
  /** Cap = largest period total x (1 + margin). */
  capMargin?: number;
}

export function parseFaultNames(list: string): FaultName[] {
  const names = list.split(",").map((name) => name.trim()).filter((name) => name.length > 0);
  if (names.length === 1 && names[0] === "all") return [...faultNames];
  if (names.length === 1 && names[0] === "none") return [];
  const unknown = names.filter((name) => !(name in faultCatalogue));
  if (unknown.length > 0) {
    throw new Error(`unknown fault(s): ${unknown.join(", ")}; known: ${faultNames.join(", ")} (or "all", "none")`);
  }
  return [...new Set(names as FaultName[])];
}

export function planFaults(workload: Workload, options: FaultPlanOptions): FaultPlan {
  const { faults, seed, eventRate = 0.012, renewBusyRate = 0.3, capMargin = 0.01 } = options;
  const random = seededRandom(seed).fork("faults");
  const enabled = new Set(faults);
  const perEvent: FaultName[] = [...stripeFaults, ...consumerSteps.map((step) => killFaults[step]), "scale-in" as const].filter((name) =>
    enabled.has(name),
  );

  const plan: FaultPlan = {
    faults: faultNames.filter((name) => enabled.has(name)),
    stripe: new Map(),
    kills: new Map(),
    scaleIns: new Set(),
    renewBusyRate: enabled.has("renew-busy") ? renewBusyRate : 0,
    resubmitDeadLetters: enabled.has("dlq-resubmit"),
    resendUnrecorded: enabled.has("nightly-resend"),
  };
  // At most one per-event fault per event, drawn in event order: the plan depends on the seed and the event list only.
  for (const event of workload.events) {
    if (event.expected === "dead-lettered" || perEvent.length === 0) continue;
    if (!random.chance(eventRate * perEvent.length)) continue;
    const fault = random.pick(perEvent);
    const step = consumerSteps.find((candidate) => killFaults[candidate] === fault);
    if (step) plan.kills.set(event.id, step);
    else if (fault === "scale-in") plan.scaleIns.add(event.id);
    else plan.stripe.set(event.id, fault as StripeFault);
  }
  if (enabled.has("spend-cap")) {
    const largest = Math.max(0, ...workload.periodTotalsCents.values());
    plan.periodCapCents = Math.ceil(largest * (1 + capMargin));
  }
  return plan;
}
