// A first charge without writing a sender: `chargeguard sandbox send` makes a customer in the sandbox's Stripe (the
// consumer dead-letters an event whose customer Stripe does not know) and puts one billing event on the queue, in
// the shape the generated consumer reads (templates/files/consumer/README.md, "The event").
import { ServiceBusClient } from "@azure/service-bus";
import { stripeObjectsOf } from "./send-outcome.js";

/**
 * The default billing event, as the generated consumer reads it. The sandbox imports no other room (it stands for
 * Azure and Stripe), so it spells the shape out; test/sandbox/send-event-shape.test.ts holds it to the runtime's UsageEvent.
 */
export interface SandboxUsageEvent {
  customerId: string;
  stripeCustomerId: string;
  paymentMethodId: string;
  /** `YYYY-MM` */
  billingPeriod: string;
  /** integer, smallest currency unit, > 0 */
  amountCents: number;
  /** ISO 4217, lower case */
  currency: string;
}

export interface SandboxEventOptions {
  /** Service Bus connection string with Send on the queue (the sandbox prints one per party). */
  connectionString: string;
  queue: string;
  /** The sandbox's Stripe origin and a test key (STRIPE_API_BASE, STRIPE_API_KEY from sandbox.env). */
  stripeApiBase: string;
  stripeApiKey: string;
  customerId: string;
  /**
   * The usage event's own id, for a consumer generated with `--billing-identity usage-event` (its record identity);
   * absent: the event has none, as a customer-period consumer reads it.
   */
  usageId?: string;
  /** Absent: a new Stripe customer is created for the event. */
  stripeCustomerId?: string;
  paymentMethodId: string;
  billingPeriod: string;
  amountCents: number;
  currency: string;
}

export interface SentEvent {
  event: SandboxUsageEvent & { usageId?: string };
  messageId: string;
  /** Whether the Stripe customer was created for this event. */
  customerCreated: boolean;
  /** The customer's PaymentIntents and Charges before the send (waitForOutcome tells this event's apart). */
  before: ReadonlySet<string>;
}

/** Only a loopback origin: this helper is for the sandbox, never a real account. */
function loopbackOrigin(apiBase: string): URL {
  const url = new URL(apiBase);
  if (!["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) {
    throw new Error(`STRIPE_API_BASE ${url.origin} is not the sandbox: sandbox send talks only to a Stripe emulator on 127.0.0.1`);
  }
  return url;
}

/** POST /v1/customers with Basic auth, the key as the user: the form Stripe's docs use (`curl -u "$KEY:"`). */
async function createCustomer(options: SandboxEventOptions): Promise<string> {
  const url = new URL("/v1/customers", loopbackOrigin(options.stripeApiBase));
  const response = await fetch(url, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${options.stripeApiKey}:`).toString("base64")}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ name: options.customerId, "metadata[customer_id]": options.customerId }).toString(),
  }).catch((error: unknown) => {
    throw new Error(`the sandbox's Stripe at ${url.origin} cannot be reached (${error instanceof Error ? error.message : String(error)}): is chargeguard sandbox running?`);
  });
  const body = (await response.json()) as { id?: string; error?: { message?: string } };
  if (!response.ok || body.id === undefined) throw new Error(`the sandbox's Stripe refused to create a customer (${response.status}): ${body.error?.message ?? "no message"}`);
  return body.id;
}

/** The queue named does not exist in the sandbox: found before anything is created at Stripe. */
export class SandboxQueueMissingError extends Error {
  override readonly name = "SandboxQueueMissingError";
}

/**
 * Checks the queue first (opening the sender's link: a missing queue is refused before a customer is made), creates
 * the customer when none is given, notes the customer's Stripe objects, then sends the event; the messageId names
 * customer and period.
 */
export async function sendSandboxEvent(options: SandboxEventOptions): Promise<SentEvent> {
  const client = new ServiceBusClient(options.connectionString, { retryOptions: { maxRetries: 1, timeoutInMs: 10_000 } });
  try {
    const sender = client.createSender(options.queue);
    await sender.createMessageBatch().catch((error: unknown) => {
      if ((error as { code?: string }).code !== "MessagingEntityNotFound") throw error;
      const endpoint = /Endpoint=([^;]+)/i.exec(options.connectionString)?.[1] ?? "the sandbox";
      throw new SandboxQueueMissingError(
        `queue ${options.queue} does not exist on ${endpoint}: send to the queue the sandbox made (SERVICEBUS_QUEUE in sandbox.env), or start it with --queue ${options.queue}; nothing was created at Stripe`,
      );
    });
    const customerCreated = options.stripeCustomerId === undefined;
    const stripeCustomerId = options.stripeCustomerId ?? (await createCustomer(options));
    const before = new Set((await stripeObjectsOf(loopbackOrigin(options.stripeApiBase).origin, options.stripeApiKey, stripeCustomerId)).map((object) => object.id));
    const event: SentEvent["event"] = {
      ...(options.usageId === undefined ? {} : { usageId: options.usageId }),
      customerId: options.customerId,
      stripeCustomerId,
      paymentMethodId: options.paymentMethodId,
      billingPeriod: options.billingPeriod,
      amountCents: options.amountCents,
      currency: options.currency,
    };
    const messageId = `${options.usageId ?? options.customerId}:${options.billingPeriod}:${stripeCustomerId}`;
    await sender.sendMessages({ body: event, messageId, contentType: "application/json" });
    await sender.close();
    return { event, messageId, customerCreated, before };
  } finally {
    await client.close();
  }
}
