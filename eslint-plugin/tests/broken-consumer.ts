// A consumer with every pattern the recommended config must catch, as the ESLint-instance tests lint it.
const body = "a1B2c3D4".repeat(3);

/** TypeScript consumer source: each line marked `// <rule>` must be reported by that rule. */
export const brokenConsumer = `
import Stripe from "stripe";
import { ServiceBusClient, type ServiceBusReceivedMessage } from "@azure/service-bus";
import pg from "pg";

const stripe = new Stripe("${["sk", "live", body].join("_")}"); // no-stripe-secret-literal
const db = new pg.Pool();
const receiver = new ServiceBusClient(process.env.SB!).createReceiver("billing", {
  receiveMode: "receiveAndDelete", // no-receive-and-delete
  maxAutoLockRenewalDurationInMs: 0, // lock-renewal-covers-stripe
});

export async function handle(message: ServiceBusReceivedMessage) {
  try {
    const intent = await stripe.paymentIntents.create(
      { amount: message.body.amountCents, currency: "usd" },
      { idempotencyKey: \`charge-\${message.messageId}\` }, // stable-idempotency-key
    );
    await stripe.charges.create({ amount: 1, currency: "usd" }); // require-idempotency-key
    await receiver.completeMessage(message); // record-before-settle
    await db.query("INSERT INTO billing_records (intent) VALUES ($1)", [intent.id]);
  } catch {
    await receiver.abandonMessage(message); // no-abandon-on-stripe-error
  }
}
`;

/** The rule each marked line expects, by line number. */
export function expectedReports(source: string): { line: number; ruleId: string }[] {
  return source.split("\n").flatMap((text, index) => {
    const match = /\/\/ ([a-z-]+)$/.exec(text);
    return match ? [{ line: index + 1, ruleId: `chargeguard/${match[1]}` }] : [];
  });
}
