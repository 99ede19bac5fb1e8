import ruleWithSuggestions from "../../src/rules/no-abandon-on-stripe-error.js";
import { detectionOnly } from "../detection-only.js";
import { cjsHeader, esmHeader, ruleTester } from "../rule-tester.js";

// Detection only: the suggestions are asserted in tests/rules/suggestions.test.ts.
const rule = detectionOnly(ruleWithSuggestions);

const abandon = (charge: string) => ({ messageId: "abandonAfterCharge" as const, data: { charge } });

ruleTester.run("no-abandon-on-stripe-error", rule, {
  valid: [
    {
      name: "abandon when the try makes no Stripe call",
      code: `${esmHeader}
async function handle(message: ServiceBusReceivedMessage) {
  try {
    JSON.parse(String(message.body));
    await stripe.paymentIntents.retrieve("pi_1");
  } catch {
    await receiver.abandonMessage(message);
  }
}`,
    },
    {
      name: "the Stripe call is after the try",
      code: `${esmHeader}
async function handle(message: ServiceBusReceivedMessage) {
  let event;
  try {
    event = JSON.parse(String(message.body));
  } catch {
    await receiver.abandonMessage(message);
    return;
  }
  await stripe.paymentIntents.create({ amount: event.amount, currency: "usd" }, { idempotencyKey: event.key });
}`,
    },
    {
      name: "a Stripe failure dead-letters or reschedules instead",
      code: `${esmHeader}
declare function reschedule(message: ServiceBusReceivedMessage): Promise<void>;
async function handle(message: ServiceBusReceivedMessage) {
  try {
    await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: "k" });
  } catch (error) {
    await reschedule(message);
    await receiver.deadLetterMessage(message, { deadLetterReason: "stripe", deadLetterErrorDescription: String(error) });
  }
}`,
    },
    {
      name: "abandon in a finally is not this rule's business",
      code: `${esmHeader}
async function handle(message: ServiceBusReceivedMessage) {
  try {
    await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: "k" });
  } finally {
    await receiver.abandonMessage(message);
  }
}`,
    },
    {
      name: "a function declared inside the catch runs later, elsewhere",
      code: `${esmHeader}
async function handle(message: ServiceBusReceivedMessage) {
  try {
    await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: "k" });
  } catch {
    setTimeout(function later() { void receiver.abandonMessage(message); }, 1000);
  }
}`,
    },
  ],
  invalid: [
    {
      name: "abandon after a Billing Meter event or an invoice item: a repeat counts or bills again",
      code: `${esmHeader}
async function meter(message: ServiceBusReceivedMessage) {
  try {
    await stripe.billing.meterEvents.create({ event_name: "api_calls", payload: { value: "1" }, identifier: "usage:1" });
  } catch {
    await receiver.abandonMessage(message);
  }
  try {
    await stripe.invoiceItems.create({ customer: "cus_1", invoice: "in_1", amount: 1, currency: "usd" }, { idempotencyKey: "item:1" });
  } catch {
    await receiver.abandonMessage(message);
  }
}`,
      errors: [abandon("stripe.billing.meterEvents.create()"), abandon("stripe.invoiceItems.create()")],
    },
    {
      name: "seed failure mode 3: abandon on a Stripe timeout",
      code: `${esmHeader}
import { isServiceBusError } from "@azure/service-bus";
async function handle(message: ServiceBusReceivedMessage) {
  try {
    const charge = await stripe.charges.create({ amount: message.body.amountCents, currency: "usd" });
    await receiver.completeMessage(message);
    return charge;
  } catch (error) {
    if (error instanceof Stripe.errors.StripeConnectionError || isServiceBusError(error)) {
      await receiver.abandonMessage(message);
    }
  }
}`,
      errors: [abandon("stripe.charges.create()")],
    },
    {
      name: "the charge happens in a same-file helper",
      code: `${esmHeader}
async function charge(amount: number) {
  return stripe.paymentIntents.create({ amount, currency: "usd", confirm: true }, { idempotencyKey: "k" });
}
async function handle(message: ServiceBusReceivedMessage) {
  try {
    await charge(message.body.amount);
  } catch {
    await receiver.abandonMessage(message);
  }
}`,
      errors: [abandon("charge()")],
    },
    {
      name: "a class-based consumer: charge in a method, abandon in another",
      code: `
import Stripe from "stripe";
import type { ServiceBusReceivedMessage, ServiceBusReceiver } from "@azure/service-bus";
export class Consumer {
  private stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
  constructor(private receiver: ServiceBusReceiver) {}
  private async bill(message: ServiceBusReceivedMessage) {
    await this.stripe.paymentIntents.create({ amount: message.body.amount, currency: "usd" }, { idempotencyKey: message.body.key });
  }
  async handle(message: ServiceBusReceivedMessage) {
    try {
      await this.bill(message);
    } catch (error) {
      console.error(error);
      await this.receiver.abandonMessage(message);
    }
  }
}`,
      errors: [abandon("this.bill()")],
    },
    {
      name: "a promise chain's catch handler",
      code: `${esmHeader}
function handle(message: ServiceBusReceivedMessage) {
  return stripe.refunds
    .create({ payment_intent: message.body.paymentIntent }, { idempotencyKey: message.body.key })
    .then(() => receiver.completeMessage(message))
    .catch(() => receiver.abandonMessage(message));
}`,
      errors: [abandon("stripe.refunds.create()")],
    },
    {
      name: "abandon nested in an arrow inside the catch",
      code: `${esmHeader}
async function handleBatch(messages: ServiceBusReceivedMessage[]) {
  try {
    for (const message of messages) await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
  } catch {
    await Promise.all(messages.map((message) => receiver.abandonMessage(message)));
  }
}`,
      errors: [abandon("stripe.paymentIntents.create()")],
    },
    {
      name: "CommonJS (.cjs)",
      filename: "consumer.cjs",
      code: `${cjsHeader}
async function handle(message) {
  try {
    await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: message.body.key });
    await receiver.completeMessage(message);
  } catch (error) {
    await receiver.abandonMessage(message);
  }
}
module.exports = { handle };`,
      languageOptions: { parserOptions: { sourceType: "script" } },
      errors: [abandon("stripe.paymentIntents.create()")],
    },
  ],
});
