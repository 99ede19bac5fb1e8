// What the degraded-dependency end-to-end tests read back from the sandbox, in one place: events made and sent,
// charges at the Stripe emulator (the ground truth), the queue drained, the 429 share and the requests that met an
// outage. The consumer tests (consumer.e2e, degraded Stripe and PostgreSQL, the operator trial) share it.
import type { UsageEvent } from "../../../runtime/event/usage-event.js";
import type { DegradationStats } from "../../../sandbox/stripe/index.js";
import type { BillingSandbox } from "./billing-sandbox.js";

/** `count` events, each for a Stripe customer of its own. */
export async function makeEvents(sandbox: BillingSandbox, count: number, overrides: (i: number) => Partial<UsageEvent> = () => ({})): Promise<UsageEvent[]> {
  const made: UsageEvent[] = [];
  for (let i = 0; i < count; i += 1) made.push(await sandbox.event({ amountCents: 1_000 + i, ...overrides(i) }));
  return made;
}

/** Sends the batch with message ids `<prefix>-<i>`, in chunks the broker takes. */
export async function sendEvents(sandbox: BillingSandbox, queue: string, batch: readonly UsageEvent[], prefix: string = queue): Promise<void> {
  const sender = sandbox.client.createSender(queue);
  try {
    for (let i = 0; i < batch.length; i += 100) await sender.sendMessages(batch.slice(i, i + 100).map((body, j) => ({ body, messageId: `${prefix}-${i + j}` })));
  } finally {
    await sender.close();
  }
}

/** The event's PaymentIntents that succeeded at Stripe. */
export function succeededCharges(sandbox: BillingSandbox, event: UsageEvent): number {
  return sandbox.stripe.ledger.paymentIntents(event.stripeCustomerId).filter((pi) => pi.status === "succeeded").length;
}

/** How many times each event was charged. */
export function chargeCounts(sandbox: BillingSandbox, batch: readonly UsageEvent[]): number[] {
  return batch.map((event) => succeededCharges(sandbox, event));
}

export function allCharged(sandbox: BillingSandbox, batch: readonly UsageEvent[]): boolean {
  return batch.every((event) => succeededCharges(sandbox, event) >= 1);
}

/** Nothing left on the queue: active, locked or scheduled. */
export function drained(sandbox: BillingSandbox, queue: string): boolean {
  const snapshot = sandbox.serviceBus.inspect(queue);
  return snapshot.active.length + snapshot.locked.length + snapshot.scheduled.length === 0;
}

/** The share of requests answered 429 between two readings of the emulator's counts. */
export function throttledShare(before: DegradationStats, after: DegradationStats): { throttled: number; admitted: number; share: number } {
  const throttled = after.throttled - before.throttled;
  const admitted = after.admitted - before.admitted;
  return { throttled, admitted, share: throttled / Math.max(1, throttled + admitted) };
}

/** Requests that met an outage, per whole second from `from` (ms, monotonic) up to `to`. */
export function outageRequestsPerSecond(stats: DegradationStats, from: number, to: number): number[] {
  const seconds = Array.from({ length: Math.max(0, Math.floor((to - from) / 1000)) }, () => 0);
  for (const at of stats.outageArrivals) {
    const second = Math.floor((at - from) / 1000);
    if (at >= from && second < seconds.length) seconds[second] = (seconds[second] ?? 0) + 1;
  }
  return seconds;
}
