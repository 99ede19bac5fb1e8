// The retry pattern of the seeds (and of chargeguard's own runtime before issue 21): the key is right (the event's
// business fields), the record is right, the settlement is right (a scheduled retry, never an abandon), but every
// failure that is not an answer about the event counts as one of its attempts: a 429, a 5xx, a timeout, a refused
// database, an unreachable vault. 8 attempts, 5 s doubling, equal jitter: the event gives up after 5 to 11 minutes
// of its dependency being down and is dead-lettered `RetryAttemptsExhausted`, though nothing was wrong with it.
// Nothing pauses intake either: while Stripe is down every replica keeps sending it its whole backlog.
import { createHash } from "node:crypto";
import { ServiceBusClient, type ServiceBusReceivedMessage } from "@azure/service-bus";
import Stripe from "stripe";
import { parseUsageEvent, type ConsumerContext, type StartConsumer, type UsageEvent, type VaultKeyProvider } from "../../runtime/index.js";
import { openBillingDatabase, type BillingDatabase } from "./support/billing-records.js";
import { stripeOptions } from "./support/stripe-options.js";

/** What the proving ground's degraded scenarios may hand it beside the run contract: the vault, as the runtime takes it. */
export interface NaiveRetryContext extends ConsumerContext {
  keyProvider?: VaultKeyProvider;
  expectedPeriodTotalCents?: number | ((billingPeriod: string) => number);
}

/** The seeds' schedule: 8 attempts, 5 s base doubling to 15 minutes (the harness scales it down with its lock). */
const seedsPolicy = { maxAttempts: 8, baseDelayMs: 5_000, maxDelayMs: 15 * 60_000 };
const attemptProperty = "attempt";

export const startConsumer: StartConsumer = async (given) => {
  const context = given as NaiveRetryContext;
  const policy = { ...seedsPolicy, ...context.retryPolicy };
  const database = await openBillingDatabase(context);
  const stripeFor = clientsPerKey(context);
  const client = new ServiceBusClient(context.serviceBus.connectionString);
  const receiver = client.createReceiver(context.serviceBus.queueName, { receiveMode: "peekLock" });
  const sender = client.createSender(context.serviceBus.queueName);

  const charge = async (event: UsageEvent): Promise<"charged" | "declined"> => {
    const existing = await database.query<{ status: string }>("SELECT status FROM billing_records WHERE customer_id = $1 AND billing_period = $2", [
      event.customerId,
      event.billingPeriod,
    ]);
    if (existing.rows[0]) return existing.rows[0].status === "declined" ? "declined" : "charged";
    const expected = context.expectedPeriodTotalCents;
    const key = context.keyProvider
      ? await context.keyProvider.keyFor(event.billingPeriod, { expectedTotalCents: typeof expected === "function" ? expected(event.billingPeriod) : (expected ?? 1) })
      : context.stripe.apiKey;
    const idempotencyKey = createHash("sha256").update(`${event.customerId}|${event.billingPeriod}|${event.amountCents}|${event.currency}`).digest("hex");
    try {
      const paymentIntent = await stripeFor(key).paymentIntents.create(
        {
          amount: event.amountCents,
          currency: event.currency,
          customer: event.stripeCustomerId,
          payment_method: event.paymentMethodId,
          confirm: true,
          off_session: true,
          metadata: { customer_id: event.customerId, billing_period: event.billingPeriod },
        },
        { idempotencyKey },
      );
      await record(database, event, "charged", paymentIntent.id, idempotencyKey);
      return "charged";
    } catch (error) {
      if (!(error instanceof Stripe.errors.StripeCardError)) throw error;
      await record(database, event, "declined", undefined, idempotencyKey);
      return "declined";
    }
  };

  const subscription = receiver.subscribe(
    {
      async processMessage(message) {
        const parsed = parseUsageEvent(message.body);
        if (!parsed.ok) {
          await receiver.deadLetterMessage(message, { deadLetterReason: "InvalidEvent", deadLetterErrorDescription: parsed.reason });
          return;
        }
        const attempt = attemptOf(message);
        try {
          await charge(parsed.event);
        } catch (error) {
          // The pattern under test: whatever failed, it was one of the event's attempts.
          const detail = error instanceof Error ? error.message : String(error);
          if (attempt >= policy.maxAttempts) {
            await receiver.deadLetterMessage(message, { deadLetterReason: "RetryAttemptsExhausted", deadLetterErrorDescription: `after ${attempt} attempts: ${detail}` });
            return;
          }
          const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
          const delayMs = step / 2 + (Math.random() * step) / 2;
          const chain = String(message.applicationProperties?.chain ?? message.messageId);
          await sender.scheduleMessages(
            { body: message.body, messageId: `${chain}:retry:${attempt + 1}`, applicationProperties: { [attemptProperty]: attempt + 1, chain } },
            new Date(Date.now() + delayMs),
          );
        }
        await receiver.completeMessage(message);
      },
      async processError(args) {
        context.log?.(`naive-retry: ${args.errorSource}: ${args.error.message}`);
      },
    },
    { autoCompleteMessages: false, maxConcurrentCalls: context.maxConcurrentCalls ?? 1 },
  );

  return {
    async close() {
      await subscription.close();
      await sender.close();
      await receiver.close();
      await client.close();
      await database.close();
    },
  };
};

function attemptOf(message: ServiceBusReceivedMessage): number {
  const value = message.applicationProperties?.[attemptProperty];
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1 ? value : 1;
}

/** One Stripe client per key (a vault key per period), against the vault's proxy when there is one. */
function clientsPerKey(context: NaiveRetryContext): (key: string) => Stripe {
  const clients = new Map<string, Stripe>();
  const settings = context.keyProvider?.apiBase === undefined ? context.stripe : { ...context.stripe, apiBase: context.keyProvider.apiBase };
  return (key) => {
    let stripe = clients.get(key);
    if (!stripe) {
      stripe = new Stripe(key, stripeOptions(settings));
      clients.set(key, stripe);
    }
    return stripe;
  };
}

async function record(database: BillingDatabase, event: UsageEvent, status: "charged" | "declined", chargeId: string | undefined, idempotencyKey: string): Promise<void> {
  await database.query(
    `INSERT INTO billing_records (customer_id, billing_period, charge_id, amount_cents, status, idempotency_key)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (customer_id, billing_period) DO NOTHING`,
    [event.customerId, event.billingPeriod, chargeId ?? null, event.amountCents, status, idempotencyKey],
  );
}
