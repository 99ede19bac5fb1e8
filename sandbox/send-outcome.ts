// What the consumer did with the event `chargeguard sandbox send` put on the queue, found from the outside as an
// operator would: a new PaymentIntent or Charge for the customer at the sandbox's Stripe (charged, or declined), a
// dead letter for the message (its reason), the message gone with nothing new at Stripe (already billed), or the
// message still on the queue when the wait ends (not picked up). Bounded: the wait never outlasts `timeoutMs`.
import { ServiceBusClient, type ServiceBusReceivedMessage } from "@azure/service-bus";

export type SendOutcome =
  | { kind: "charged" | "declined"; object: string; status: string; amount: number; currency: string }
  | { kind: "already-billed" }
  | { kind: "dead-lettered"; reason: string; description: string }
  | { kind: "not-picked-up"; waitedMs: number };

export interface OutcomeWatch {
  /** A connection string with Listen on the queue (the sandbox's root or operator string): peeks, never takes. */
  listenConnectionString: string;
  queue: string;
  messageId: string;
  stripeApiBase: string;
  stripeApiKey: string;
  stripeCustomerId: string;
  /** The customer's Stripe objects before the send: anything else is this event's. */
  before: ReadonlySet<string>;
  timeoutMs: number;
}

interface StripeObject {
  id: string;
  status: string;
  amount: number;
  currency: string;
}

/** The customer's PaymentIntents and Charges at the sandbox's Stripe (the flows `sandbox send`'s event serves). */
export async function stripeObjectsOf(stripeApiBase: string, stripeApiKey: string, customer: string): Promise<StripeObject[]> {
  const found: StripeObject[] = [];
  for (const path of ["/v1/payment_intents", "/v1/charges"]) {
    const url = new URL(`${path}?customer=${encodeURIComponent(customer)}&limit=100`, stripeApiBase);
    const response = await fetch(url, { headers: { authorization: `Basic ${Buffer.from(`${stripeApiKey}:`).toString("base64")}` } });
    const body = (await response.json()) as { data?: StripeObject[] };
    found.push(...(body.data ?? []));
  }
  return found;
}

/** This event's message or one of its scheduled retries (`<id>:retry:...`, `<id>:wait:...`). */
const ofEvent = (messageId: string) => (message: ServiceBusReceivedMessage) =>
  message.messageId !== undefined && (String(message.messageId) === messageId || String(message.messageId).startsWith(`${messageId}:`));

/**
 * One look from the start of the queue and its dead-letter subqueue. A client of its own each time: the SDK's peek
 * goes on from the last sequence number any receiver of that client peeked, so a second look would see nothing old.
 */
async function peekBoth(connectionString: string, queue: string): Promise<{ active: ServiceBusReceivedMessage[]; dead: ServiceBusReceivedMessage[] }> {
  const client = new ServiceBusClient(connectionString, { retryOptions: { maxRetries: 1, timeoutInMs: 5_000 } });
  try {
    const [active, dead] = await Promise.all([
      client.createReceiver(queue).peekMessages(250),
      client.createReceiver(queue, { subQueueType: "deadLetter" }).peekMessages(250),
    ]);
    return { active, dead };
  } finally {
    await client.close();
  }
}

export async function waitForOutcome(watch: OutcomeWatch): Promise<SendOutcome> {
  const started = Date.now();
  const matches = ofEvent(watch.messageId);
  for (;;) {
    const { active, dead } = await peekBoth(watch.listenConnectionString, watch.queue);
    const letter = dead.find(matches);
    if (letter) return { kind: "dead-lettered", reason: letter.deadLetterReason ?? "(no reason)", description: letter.deadLetterErrorDescription ?? "" };
    const pending = active.some(matches);
    // Read after the queue: the consumer creates the Stripe object before it completes the message.
    const created = (await stripeObjectsOf(watch.stripeApiBase, watch.stripeApiKey, watch.stripeCustomerId)).filter((object) => !watch.before.has(object.id));
    const [object] = created;
    if (!pending && object) return { kind: object.status === "succeeded" ? "charged" : "declined", object: object.id, status: object.status, amount: object.amount, currency: object.currency };
    if (!pending) return { kind: "already-billed" };
    if (Date.now() - started >= watch.timeoutMs) return { kind: "not-picked-up", waitedMs: Date.now() - started };
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
