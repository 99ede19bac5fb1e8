// The billing workload: N events for many customers and periods, with producer duplicates, card declines and
// malformed events, generated from a seed. Every event carries the outcome a correct consumer must reach, so the
// metrics can judge any contender against the same answer sheet.
import type { UsageEvent } from "../../runtime/index.js";
import { seededRandom, type Random } from "./random.js";

export const malformationKinds = [
  "bad-json",
  "missing-field",
  "negative-amount",
  "fractional-amount",
  "malformed-currency",
  "oversized-body",
] as const;
export type MalformationKind = (typeof malformationKinds)[number];

export type ExpectedOutcome = "charged" | "declined" | "dead-lettered";

export const paymentMethods = {
  succeeds: "pm_card_visa",
  declines: "pm_card_chargeDeclined",
} as const;

export interface WorkloadEvent {
  /** Stable id of the business event within the workload, e.g. `e000042`. */
  id: string;
  kind: "charge" | "decline" | "malformed";
  malformation?: MalformationKind;
  expected: ExpectedOutcome;
  /** The message body as sent: a JSON object, or a string for `bad-json`. */
  body: unknown;
  /** One per send; two when the producer sent the event twice. */
  messageIds: string[];
  /** Who would be charged how much if a consumer charged it (malformed events too: a broken consumer might). */
  stripeCustomerId: string;
  billingPeriod: string;
  amountCents: number;
  /** The parsed event for charges and declines. */
  usage?: UsageEvent;
}

export interface WorkloadMessage {
  messageId: string;
  body: unknown;
  eventId: string;
}

export interface Workload {
  seed: number;
  events: WorkloadEvent[];
  /** Every send in queue order (producer duplicates shuffled in later). */
  messages: WorkloadMessage[];
  stripeCustomerIds: string[];
  /** Sum of every valid event's amount per billing period: what a correct run may reserve at most. */
  periodTotalsCents: Map<string, number>;
}

export interface WorkloadOptions {
  events: number;
  seed: number;
  /** Fractions of all events. */
  declineRate?: number;
  malformedRate?: number;
  /** Fraction of valid events the producer sends twice. */
  duplicateRate?: number;
  currency?: string;
}

export const workloadDefaults = { declineRate: 0.06, malformedRate: 0.04, duplicateRate: 0.05, currency: "usd" };

/** Bodies above this many bytes count as oversized (Service Bus Standard allows 256 KB; the event is ~200 bytes). */
export const oversizedBodyBytes = 64 * 1024;

const periodsPerCustomer = 6;
const year = 2026;

export function generateWorkload(options: WorkloadOptions): Workload {
  const { events: count, seed } = options;
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`events must be a positive integer, got ${count}`);
  const settings = { ...workloadDefaults, ...definedOnly(options) };
  for (const rate of ["declineRate", "malformedRate", "duplicateRate"] as const) {
    const value = settings[rate];
    if (!(value >= 0 && value <= 1)) throw new RangeError(`${rate} must be within [0, 1], got ${value}`);
  }
  const random = seededRandom(seed);
  const kinds = random.fork("kinds");
  const amounts = random.fork("amounts");
  const ids = random.fork("message-ids");
  const order = random.fork("order");

  // Customer c owns slots c, c + C, c + 2C, ...: each slot is a different billing period for that customer, so every
  // event is a distinct (customer, period), and amounts are unique per customer so any charge is attributable.
  const customerCount = Math.ceil(count / periodsPerCustomer);
  const firstMonth = Array.from({ length: customerCount }, () => random.int(0, 11));
  const amountsTaken = Array.from({ length: customerCount }, () => new Set<number>());
  const stripeCustomerIds = Array.from({ length: customerCount }, (_, c) => `cus_pg${pad(c, 6)}`);

  const workloadEvents: WorkloadEvent[] = [];
  for (let i = 0; i < count; i++) {
    const customer = i % customerCount;
    const slot = Math.floor(i / customerCount);
    const month = ((firstMonth[customer] ?? 0) + slot) % 12;
    const billingPeriod = `${year}-${pad(month + 1, 2)}`;
    let amountCents: number;
    do amountCents = amounts.int(5, 2500) * 10;
    while (amountsTaken[customer]?.has(amountCents));
    amountsTaken[customer]?.add(amountCents);

    const roll = kinds.next();
    const kind = roll < settings.malformedRate ? "malformed" : roll < settings.malformedRate + settings.declineRate ? "decline" : "charge";
    const usage: UsageEvent = {
      customerId: `acct-${pad(customer, 6)}`,
      stripeCustomerId: stripeCustomerIds[customer] as string,
      paymentMethodId: kind === "decline" ? paymentMethods.declines : paymentMethods.succeeds,
      billingPeriod,
      amountCents,
      currency: settings.currency,
    };
    const id = `e${pad(i, 6)}`;
    const base = { id, stripeCustomerId: usage.stripeCustomerId, billingPeriod, amountCents, messageIds: [uuid(ids)] };
    if (kind === "malformed") {
      const malformation = kinds.pick(malformationKinds);
      workloadEvents.push({ ...base, kind, malformation, expected: "dead-lettered", body: malform(usage, malformation, kinds) });
    } else {
      if (kinds.chance(settings.duplicateRate)) base.messageIds.push(uuid(ids));
      workloadEvents.push({ ...base, kind, expected: kind === "charge" ? "charged" : "declined", body: { ...usage }, usage });
    }
  }

  const messages = workloadEvents.flatMap((event) =>
    event.messageIds.map((messageId) => ({ messageId, body: event.body, eventId: event.id })),
  );
  shuffle(messages, order);

  const periodTotalsCents = new Map<string, number>();
  for (const event of workloadEvents) {
    if (event.usage) periodTotalsCents.set(event.billingPeriod, (periodTotalsCents.get(event.billingPeriod) ?? 0) + event.amountCents);
  }
  return { seed, events: workloadEvents, messages, stripeCustomerIds, periodTotalsCents };
}

/** The body of a malformed event: each kind breaks exactly one rule of the event schema. */
function malform(usage: UsageEvent, kind: MalformationKind, random: Random): unknown {
  switch (kind) {
    case "bad-json":
      // Cut short before its closing brace: unique per event (it names the customer), and not JSON.
      return JSON.stringify(usage).slice(0, -random.int(1, 12));
    case "missing-field": {
      const field = random.pick(["customerId", "stripeCustomerId", "paymentMethodId", "billingPeriod", "amountCents", "currency"] as const);
      const { [field]: _dropped, ...rest } = usage;
      return rest;
    }
    case "negative-amount":
      return { ...usage, amountCents: -usage.amountCents };
    case "fractional-amount":
      return { ...usage, amountCents: usage.amountCents + 0.5 };
    case "malformed-currency":
      // Not the shape of a currency code (any three lower-case letters is one: Stripe decides which it takes).
      return { ...usage, currency: "US$" };
    case "oversized-body":
      // Every field valid but the customer reference: the size alone must get it refused, before any charge.
      return { ...usage, customerId: usage.customerId + "x".repeat(oversizedBodyBytes) };
  }
}

function shuffle<T>(items: T[], random: Random): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
}

/** A UUID-shaped message id drawn from the seeded stream (reproducible, unlike crypto.randomUUID). */
function uuid(random: Random): string {
  const hex = Array.from({ length: 32 }, () => random.int(0, 15).toString(16)).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
