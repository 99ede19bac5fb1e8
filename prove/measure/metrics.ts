// Judges one contender's run against the workload's answer sheet: what reached Stripe (the ledger), what ended in
// the dead-letter queue, and what the consumer recorded. Pure, so it is tested on its own.
import type { Workload, WorkloadEvent } from "../workload/workload.js";

/** One card attempt as the Stripe ledger saw it (a PaymentIntent confirmation). */
export interface StripeAttempt {
  paymentIntentId: string;
  customer: string;
  amountCents: number;
  outcome: "succeeded" | "declined" | "other";
}

export interface DeadLetter {
  messageId: string;
  body: unknown;
  reason: string;
}

export interface RunObservations {
  attempts: StripeAttempt[];
  paymentIntents: number;
  /** The dead-letter queue when the run ended. */
  deadLetters: DeadLetter[];
  deliveries: number;
  /** Event ids the consumer's own store holds as declined (a recorded decline), if it has a store. */
  recordedDeclines?: ReadonlySet<string>;
  periodCapCents?: number;
  /**
   * Only when the run did not settle: the events it left in flight (a message still queued, a record still pending).
   * Unresolved ones among them are unsettled, not lost: waiting longer might have resolved them.
   */
  inFlight?: ReadonlySet<string>;
  wallMs: number;
}

export interface ContenderMetrics {
  events: number;
  deliveries: number;
  paymentIntents: number;
  /** Succeeded charges. */
  charges: number;
  /** Succeeded charges beyond one per (customer, period) event. */
  duplicateCharges: number;
  /** Events with at least one succeeded charge (what a consumer's `charged` outcome must count). */
  eventsCharged: number;
  /** Events with at least one declined card attempt (what its `declined` outcome must count). */
  eventsDeclined: number;
  /** Valid events with neither a charge, nor a recorded decline, nor a dead-letter, nor anything left in flight. */
  lostBillings: number;
  /** Valid events unresolved but still in flight when a run that did not settle was given up on (inconclusive). */
  unsettledBillings: number;
  /** Succeeded spend above the period cap, summed over periods. */
  overCapCents: number;
  /** Card attempts after the first decline of an event. */
  repeatedDeclines: number;
  deadLettered: Record<string, number>;
  malformedEvents: number;
  /** Malformed events found in the dead-letter queue with a non-empty reason (and never charged). */
  malformedDeadLettered: number;
  /** Malformed events that reached a succeeded charge. */
  malformedCharged: number;
  /** Succeeded charges that match no event of the workload. */
  unattributedCharges: number;
  /** Valid events found in the dead-letter queue and never charged (a spend cap's refusals; in a degraded scenario, a failure). */
  validDeadLettered: number;
  wallMs: number;
}

export function measure(workload: Workload, observed: RunObservations): ContenderMetrics {
  const { succeeded, declined, spentByPeriod, unattributedCharges } = attemptsByEvent(workload, observed.attempts);

  const deadLettered: Record<string, number> = {};
  for (const letter of observed.deadLetters) {
    const reason = letter.reason.trim() === "" ? "(no reason)" : letter.reason;
    deadLettered[reason] = (deadLettered[reason] ?? 0) + 1;
  }
  const deadLetteredEvents = deadLetteredEventIds(workload, observed.deadLetters);
  const malformedWithReason = deadLetteredEventIds(workload, observed.deadLetters.filter((letter) => letter.reason.trim() !== ""));

  let duplicateCharges = 0;
  let lostBillings = 0;
  let unsettledBillings = 0;
  let repeatedDeclines = 0;
  let malformedCharged = 0;
  let malformedDeadLettered = 0;
  let validDeadLettered = 0;
  for (const event of workload.events) {
    const charges = succeeded.get(event.id) ?? 0;
    const declines = declined.get(event.id) ?? 0;
    duplicateCharges += Math.max(0, charges - 1);
    repeatedDeclines += Math.max(0, declines - 1);
    if (event.expected === "dead-lettered") {
      if (charges > 0) malformedCharged++;
      else if (malformedWithReason.has(event.id)) malformedDeadLettered++;
      continue;
    }
    if (charges === 0 && deadLetteredEvents.has(event.id)) validDeadLettered++;
    if (charges > 0 || declines > 0 || observed.recordedDeclines?.has(event.id) === true || deadLetteredEvents.has(event.id)) continue;
    if (observed.inFlight?.has(event.id) === true) unsettledBillings++;
    else lostBillings++;
  }

  let overCapCents = 0;
  if (observed.periodCapCents !== undefined) {
    for (const spent of spentByPeriod.values()) overCapCents += Math.max(0, spent - observed.periodCapCents);
  }

  return {
    events: workload.events.length,
    deliveries: observed.deliveries,
    paymentIntents: observed.paymentIntents,
    charges: [...succeeded.values()].reduce((sum, n) => sum + n, 0) + unattributedCharges,
    duplicateCharges,
    eventsCharged: succeeded.size,
    eventsDeclined: declined.size,
    lostBillings,
    unsettledBillings,
    overCapCents,
    repeatedDeclines,
    deadLettered,
    malformedEvents: workload.events.filter((event) => event.expected === "dead-lettered").length,
    malformedDeadLettered,
    malformedCharged,
    unattributedCharges,
    validDeadLettered,
    wallMs: observed.wallMs,
  };
}

interface AttemptsByEvent {
  /** Succeeded and declined card attempts per event id. */
  succeeded: Map<string, number>;
  declined: Map<string, number>;
  spentByPeriod: Map<string, number>;
  unattributedCharges: number;
}

function attemptsByEvent(workload: Workload, attempts: readonly StripeAttempt[]): AttemptsByEvent {
  const index = eventIndex(workload);
  const found: AttemptsByEvent = { succeeded: new Map(), declined: new Map(), spentByPeriod: new Map(), unattributedCharges: 0 };
  for (const attempt of attempts) {
    const event = index.byCharge.get(chargeKey(attempt.customer, attempt.amountCents));
    if (attempt.outcome === "succeeded") {
      if (!event) {
        found.unattributedCharges++;
        continue;
      }
      found.succeeded.set(event.id, (found.succeeded.get(event.id) ?? 0) + 1);
      found.spentByPeriod.set(event.billingPeriod, (found.spentByPeriod.get(event.billingPeriod) ?? 0) + attempt.amountCents);
    } else if (attempt.outcome === "declined" && event) {
      found.declined.set(event.id, (found.declined.get(event.id) ?? 0) + 1);
    }
  }
  return found;
}

/** The valid events with no end: neither charged, nor declined (at Stripe or in the records), nor dead-lettered. */
export function unresolvedEvents(workload: Workload, observed: Pick<RunObservations, "attempts" | "deadLetters" | "recordedDeclines">): WorkloadEvent[] {
  const { succeeded, declined } = attemptsByEvent(workload, observed.attempts);
  const deadLettered = deadLetteredEventIds(workload, observed.deadLetters);
  return workload.events.filter(
    (event) => event.expected !== "dead-lettered" && !succeeded.has(event.id) && !declined.has(event.id) && observed.recordedDeclines?.has(event.id) !== true && !deadLettered.has(event.id),
  );
}

/** The workload events found in the dead-letter queue, by messageId or, for re-sent copies, by body. */
export function deadLetteredEventIds(workload: Workload, letters: readonly DeadLetter[]): Set<string> {
  const index = eventIndex(workload);
  const found = new Set<string>();
  for (const letter of letters) {
    const event = index.byMessageId.get(letter.messageId) ?? findByBody(index, letter.body);
    if (event) found.add(event.id);
  }
  return found;
}

/** The workload event a message carries: by its messageId, or for retries and re-sent copies (new ids) by its body. */
export function eventOfMessage(workload: Workload, message: { messageId: string; body: unknown }): WorkloadEvent | undefined {
  const index = eventIndex(workload);
  return index.byMessageId.get(message.messageId) ?? findByBody(index, message.body);
}

/** What went wrong, worst first; empty when the contender did everything right. */
export interface VerdictOptions {
  /** Degraded scenarios: an event dead-lettered though nothing was wrong with it is a failure. */
  validDeadLetteredFails?: boolean;
}

export function failures(metrics: ContenderMetrics, options: VerdictOptions = {}): string[] {
  const found: string[] = [];
  if (options.validDeadLetteredFails && metrics.validDeadLettered > 0) found.push(`${formatCount(metrics.validDeadLettered)} valid event(s) dead-lettered`);
  if (metrics.duplicateCharges > 0) found.push(`${formatCount(metrics.duplicateCharges)} duplicate charge(s)`);
  if (metrics.overCapCents > 0) found.push(`${formatCents(metrics.overCapCents)} over the spend cap`);
  if (metrics.lostBillings > 0) found.push(`${formatCount(metrics.lostBillings)} lost billing(s)`);
  if (metrics.repeatedDeclines > 0) found.push(`${formatCount(metrics.repeatedDeclines)} repeated decline(s)`);
  if (metrics.malformedCharged > 0) found.push(`${formatCount(metrics.malformedCharged)} malformed event(s) charged`);
  const notDeadLettered = metrics.malformedEvents - metrics.malformedDeadLettered - metrics.malformedCharged;
  if (notDeadLettered > 0) found.push(`${formatCount(notDeadLettered)} malformed event(s) not dead-lettered with a reason`);
  if (metrics.unattributedCharges > 0) found.push(`${formatCount(metrics.unattributedCharges)} charge(s) matching no event`);
  return found;
}

/**
 * FAIL for anything wrong with the money (duplicates, lost billings, spend over the cap, ...), whatever else; else
 * DID NOT SETTLE when billings were still in flight when the run was given up on (the harness cannot tell); else PASS.
 */
export function verdict(metrics: ContenderMetrics, options: VerdictOptions = {}): string {
  const found = failures(metrics, options);
  const unsettled = metrics.unsettledBillings > 0 ? `${formatCount(metrics.unsettledBillings)} billing(s) still in flight, neither billed, refused nor dead-lettered` : undefined;
  if (found.length > 0) return `FAIL: ${[...found, ...(unsettled ? [unsettled] : [])].join(", ")}`;
  if (unsettled) return `DID NOT SETTLE: ${unsettled} when the wait ended (inconclusive)`;
  return `PASS: every valid event billed or declined exactly once, every malformed event dead-lettered with a reason`;
}

/** A contender's verdict in one word: pass, fail, or did not settle (inconclusive; a run not run at all fails). */
export type VerdictOutcome = "pass" | "fail" | "did-not-settle";

export function verdictOutcome(verdictLine: string): VerdictOutcome {
  if (verdictLine.startsWith("PASS")) return "pass";
  return verdictLine.startsWith("DID NOT SETTLE") ? "did-not-settle" : "fail";
}

/** Counts in every report (terminal, HTML, verdicts) with thousands separators: 10,000, not 10000. */
export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

export function formatCents(cents: number): string {
  return `$${(cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** The workload event charged to this customer for this amount (amounts are unique per customer). */
export function eventForCharge(workload: Workload, customer: string, amountCents: number): WorkloadEvent | undefined {
  return eventIndex(workload).byCharge.get(chargeKey(customer, amountCents));
}

interface EventIndex {
  byCharge: Map<string, WorkloadEvent>;
  byMessageId: Map<string, WorkloadEvent>;
  byBody: Map<string, WorkloadEvent>;
}

const indexes = new WeakMap<Workload, EventIndex>();

function eventIndex(workload: Workload): EventIndex {
  const cached = indexes.get(workload);
  if (cached) return cached;
  const index: EventIndex = { byCharge: new Map(), byMessageId: new Map(), byBody: new Map() };
  for (const event of workload.events) {
    index.byCharge.set(chargeKey(event.stripeCustomerId, event.amountCents), event);
    for (const messageId of event.messageIds) index.byMessageId.set(messageId, event);
    index.byBody.set(canonicalBody(event.body), event);
  }
  indexes.set(workload, index);
  return index;
}

/** Retries and resubmissions carry new messageIds: recognise the event by its body instead. */
function findByBody(index: EventIndex, body: unknown): WorkloadEvent | undefined {
  const decoded = Buffer.isBuffer(body) || body instanceof Uint8Array ? Buffer.from(body).toString("utf8") : body;
  const exact = index.byBody.get(canonicalBody(decoded));
  if (exact) return exact;
  const parsed = typeof decoded === "string" ? tryParse(decoded) : decoded;
  if (parsed && typeof parsed === "object") {
    const { stripeCustomerId, amountCents } = parsed as Record<string, unknown>;
    if (typeof stripeCustomerId === "string" && typeof amountCents === "number") {
      return index.byCharge.get(chargeKey(stripeCustomerId, Math.abs(Math.floor(amountCents))));
    }
    return index.byBody.get(canonicalBody(parsed));
  }
  return undefined;
}

function chargeKey(customer: string, amountCents: number): string {
  return `${customer}|${amountCents}`;
}

/** One spelling per body, whatever the order of its fields (a string body: as it is). */
export function canonicalBody(body: unknown): string {
  if (typeof body === "string") return `s:${body}`;
  return `j:${JSON.stringify(body, (_key, value: unknown) =>
    value && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  )}`;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
