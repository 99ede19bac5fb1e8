// The corpus's files: realistic TypeScript (utilities, services, billing consumers, Stripe billing services), each
// drawn from the caller's seeded stream (`{ pick, between }`), so a seed names one corpus.

const NOUNS = ["invoice", "usage", "meter", "account", "customer", "plan", "seat", "credit", "ledger", "payout", "order", "quota"];
const VERBS = ["load", "save", "sync", "apply", "record", "close", "open", "rate", "price", "settle", "audit", "export"];
const capital = (word) => word[0].toUpperCase() + word.slice(1);

export function utility(index, { pick, between }) {
  const noun = pick(NOUNS);
  const type = `${capital(noun)}${index}`;
  const lines = [
    `// Helpers for ${noun} values: formatting, money arithmetic, grouping.`,
    `export interface ${type} { id: string; ${noun}Id: string; amountCents: number; currency: string; period: string; tags: string[] }`,
    `export type ${type}Status = "open" | "closed" | "void";`,
    `const CURRENCY_DIGITS: Record<string, number> = { usd: 2, eur: 2, jpy: 0, gbp: 2 };`,
    ``,
  ];
  for (let fn = 0; fn < between(6, 12); fn += 1) {
    const name = `${pick(VERBS)}${capital(noun)}${fn}`;
    switch (fn % 4) {
      case 0:
        lines.push(
          `export function ${name}(items: readonly ${type}[], currency = "usd"): Map<string, number> {`,
          `  const totals = new Map<string, number>();`,
          `  for (const item of items) {`,
          `    if (item.currency !== currency) continue;`,
          `    totals.set(item.period, (totals.get(item.period) ?? 0) + item.amountCents);`,
          `  }`,
          `  return totals;`,
          `}`,
        );
        break;
      case 1:
        lines.push(
          `export function ${name}(amountCents: number, currency: string): string {`,
          `  const digits = CURRENCY_DIGITS[currency.toLowerCase()] ?? 2;`,
          `  const value = (amountCents / 10 ** digits).toFixed(digits);`,
          `  return \`\${value} \${currency.toUpperCase()}\`;`,
          `}`,
        );
        break;
      case 2:
        lines.push(
          `export function ${name}(value: ${type}, status: ${type}Status): ${type} {`,
          `  const tags = value.tags.filter((tag) => !tag.startsWith("status:"));`,
          `  return { ...value, tags: [...tags, \`status:\${status}\`].sort() };`,
          `}`,
        );
        break;
      default:
        lines.push(
          `export const ${name} = (items: ${type}[], size = ${between(5, 50)}): ${type}[][] =>`,
          `  items.reduce<${type}[][]>((pages, item, position) => {`,
          `    if (position % size === 0) pages.push([]);`,
          `    pages[pages.length - 1]!.push(item);`,
          `    return pages;`,
          `  }, []);`,
        );
    }
    lines.push("");
  }
  return lines.join("\n");
}

export function service(index, { pick }) {
  const noun = pick(NOUNS);
  const entity = `${capital(noun)}Record${index}`;
  return `import { Pool } from "pg";
import { format${index % 7} } from "../utilities/format-${index % 7}.js";

export interface ${entity} { id: string; customerId: string; amountCents: number; state: "pending" | "done"; updatedAt: Date }

interface Repository<T> { create(row: Omit<T, "updatedAt">): Promise<T>; update(id: string, patch: Partial<T>): Promise<T>; find(id: string): Promise<T | null> }

export class ${capital(noun)}Service${index} {
  private readonly cache = new Map<string, ${entity}>();
  constructor(private readonly pool: Pool, private readonly repository: Repository<${entity}>, private readonly log: (line: string) => void) {}

  async get(id: string): Promise<${entity} | null> {
    const cached = this.cache.get(id);
    if (cached) return cached;
    const result = await this.pool.query<${entity}>("SELECT * FROM ${noun}_records WHERE id = $1", [id]);
    const row = result.rows[0] ?? null;
    if (row) this.cache.set(id, row);
    return row;
  }

  async open(customerId: string, amountCents: number): Promise<${entity}> {
    if (!Number.isInteger(amountCents) || amountCents <= 0) throw new Error(\`amountCents must be a positive integer, got \${amountCents}\`);
    const row = await this.repository.create({ id: \`${noun}-\${customerId}-\${amountCents}\`, customerId, amountCents, state: "pending" });
    this.log(\`opened \${row.id} for \${format${index % 7}(amountCents)}\`);
    return row;
  }

  async close(id: string): Promise<void> {
    try {
      await this.pool.query("UPDATE ${noun}_records SET state = 'done' WHERE id = $1", [id]);
      this.cache.delete(id);
    } catch (error) {
      this.log(\`close \${id} failed: \${String(error)}\`);
      throw error;
    }
  }

  async totals(customerIds: readonly string[]): Promise<Record<string, number>> {
    const rows = await Promise.all(customerIds.map((customerId) => this.pool.query<{ total: string }>(
      "SELECT coalesce(sum(amount_cents), 0) AS total FROM ${noun}_records WHERE customer_id = $1", [customerId])));
    return Object.fromEntries(customerIds.map((customerId, position) => [customerId, Number(rows[position]?.rows[0]?.total ?? 0)]));
  }

  async touch(id: string): Promise<${entity}> {
    return this.repository.update(id, { updatedAt: new Date() });
  }
}
`;
}

/** A billing consumer; one in ten carries one of the seeds' mistakes, so the plugin has something to report. */
export function consumer(index, { pick, between }) {
  const broken = index % 10 === 0 ? pick(["random-key", "message-id", "abandon", "no-key"]) : "none";
  const timeout = pick([10_000, 20_000, 30_000]);
  const retries = between(0, 2);
  const key =
    broken === "random-key" ? "randomUUID()" : broken === "message-id" ? "`charge-${message.messageId}`" : "keyFor(event)";
  const options = broken === "no-key" ? "" : `, { idempotencyKey: ${key} }`;
  const onUnknown =
    broken === "abandon"
      ? "await receiver.abandonMessage(message);"
      : `await receiver.deadLetterMessage(message, { deadLetterReason: "stripe-outcome-unknown", deadLetterErrorDescription: String(error) });`;
  return `import Stripe from "stripe";
import { ServiceBusClient, type ServiceBusReceivedMessage, type ServiceBusReceiver } from "@azure/service-bus";
import { createHash, randomUUID } from "node:crypto";
import { Pool } from "pg";

interface UsageEvent { customerId: string; stripeCustomerId: string; billingPeriod: string; amountCents: number; currency: string }

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY ?? "", { timeout: ${timeout}, maxNetworkRetries: ${retries} });
const pool = new Pool();
const traceId = randomUUID();

function parse(body: unknown): UsageEvent {
  const event = body as Partial<UsageEvent>;
  if (typeof event.customerId !== "string" || typeof event.amountCents !== "number") throw new Error("customerId and amountCents are required");
  return event as UsageEvent;
}

function keyFor(event: UsageEvent): string {
  return createHash("sha256").update(JSON.stringify([event.customerId, event.billingPeriod, event.amountCents, event.currency])).digest("hex");
}

export async function handle${index}(receiver: ServiceBusReceiver, message: ServiceBusReceivedMessage): Promise<void> {
  const event = parse(message.body);
  const claim = await pool.query("INSERT INTO billing_records (key, customer_id, period) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [keyFor(event), event.customerId, event.billingPeriod]);
  if (claim.rowCount === 0) {
    await receiver.completeMessage(message);
    return;
  }
  try {
    const intent = await stripe.paymentIntents.create(
      { amount: event.amountCents, currency: event.currency, customer: event.stripeCustomerId, confirm: true, off_session: true, metadata: { trace: traceId } }${options},
    );
    await pool.query("UPDATE billing_records SET state = 'charged', intent = $2 WHERE key = $1", [keyFor(event), intent.id]);
    await receiver.completeMessage(message);
  } catch (error) {
    ${onUnknown}
  }
}

export function start${index}(connectionString: string) {
  const client = new ServiceBusClient(connectionString);
  const receiver = client.createReceiver("billing-${index % 5}", { receiveMode: "peekLock", maxAutoLockRenewalDurationInMs: ${timeout * (retries + 1) + 5_000 * retries + 60_000} });
  return receiver.subscribe({
    processMessage: (message) => handle${index}(receiver, message),
    processError: async ({ error }) => console.error(error),
  });
}
`;
}

/** A Stripe billing service of the kind consumers get injected (NestJS-style provider). */
export function billingService(index, { between }) {
  const retries = between(0, 2);
  return `import Stripe from "stripe";
import { createHash } from "node:crypto";

export interface Charge${index} { customerId: string; stripeCustomerId: string; billingPeriod: string; amountCents: number; currency: string }

export class BillingService${index} {
  private readonly stripe = new Stripe(process.env.STRIPE_SECRET_KEY ?? "", { timeout: 20_000, maxNetworkRetries: ${retries} });

  keyFor(charge: Charge${index}): string {
    return createHash("sha256").update(JSON.stringify([charge.customerId, charge.billingPeriod, charge.amountCents, charge.currency])).digest("hex");
  }

  async charge(charge: Charge${index}): Promise<string> {
    const intent = await this.stripe.paymentIntents.create(
      { amount: charge.amountCents, currency: charge.currency, customer: charge.stripeCustomerId, confirm: true, off_session: true },
      { idempotencyKey: \`usage:v1:\${this.keyFor(charge)}\` },
    );
    return intent.id;
  }

  async refund(intentId: string, charge: Charge${index}): Promise<void> {
    await this.stripe.refunds.create({ payment_intent: intentId }, { idempotencyKey: \`refund:\${this.keyFor(charge)}\` });
  }

  async find(charge: Charge${index}) {
    const found = await this.stripe.paymentIntents.search({ query: \`metadata['key']:'\${this.keyFor(charge)}'\` });
    return found.data[0] ?? null;
  }
}
`;
}

/** A class consumer with the billing service injected; one in ten abandons after a charge. */
export function classConsumer(index) {
  const service = Math.max(0, index - 1);
  const onUnknown =
    index % 10 === 0
      ? "await this.receiver.abandonMessage(message);"
      : `await this.receiver.deadLetterMessage(message, { deadLetterReason: "stripe-outcome-unknown", deadLetterErrorDescription: String(error) });`;
  return `import type { ServiceBusReceivedMessage, ServiceBusReceiver } from "@azure/service-bus";
import Stripe from "stripe";
import { Pool } from "pg";

interface Charge { customerId: string; stripeCustomerId: string; billingPeriod: string; amountCents: number; currency: string }

class BillingService {
  constructor(private readonly stripe: Stripe) {}
  async charge(charge: Charge, key: string): Promise<string> {
    const intent = await this.stripe.paymentIntents.create({ amount: charge.amountCents, currency: charge.currency, customer: charge.stripeCustomerId, confirm: true }, { idempotencyKey: key });
    return intent.id;
  }
}

export class UsageConsumer${index} {
  private readonly pool = new Pool();
  constructor(private readonly billing: BillingService, private readonly receiver: ServiceBusReceiver) {}

  private parse(body: unknown): Charge {
    const charge = body as Partial<Charge>;
    if (typeof charge.customerId !== "string" || typeof charge.amountCents !== "number") throw new Error("customerId and amountCents are required (service ${service})");
    return charge as Charge;
  }

  async handle(message: ServiceBusReceivedMessage): Promise<void> {
    const charge = this.parse(message.body);
    const key = \`\${charge.customerId}:\${charge.billingPeriod}:\${charge.amountCents}\`;
    const claim = await this.pool.query("INSERT INTO billing_records (key) VALUES ($1) ON CONFLICT DO NOTHING", [key]);
    if (claim.rowCount === 0) {
      await this.receiver.completeMessage(message);
      return;
    }
    try {
      const intent = await this.billing.charge(charge, key);
      await this.pool.query("UPDATE billing_records SET state = 'charged', intent = $2 WHERE key = $1", [key, intent]);
      await this.receiver.completeMessage(message);
    } catch (error) {
      ${onUnknown}
    }
  }
}
`;
}
