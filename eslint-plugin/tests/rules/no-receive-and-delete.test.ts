import rule from "../../src/rules/no-receive-and-delete.js";
import { ruleTester } from "../rule-tester.js";

const header = `
import Stripe from "stripe";
import { ServiceBusClient } from "@azure/service-bus";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
const client = new ServiceBusClient(process.env.SERVICEBUS_CONNECTION_STRING!);
`;

const charge = `
export async function charge(key: string) {
  await stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: key });
}`;

ruleTester.run("no-receive-and-delete", rule, {
  valid: [
    { name: "peekLock in a billing file", code: `${header}const receiver = client.createReceiver("billing", { receiveMode: "peekLock" });${charge}` },
    {
      name: "receiveAndDelete where no money moves (a telemetry consumer)",
      code: `${header}
const receiver = client.createReceiver("telemetry", { receiveMode: "receiveAndDelete" });
export const lookup = (id: string) => stripe.paymentIntents.retrieve(id);`,
    },
  ],
  invalid: [
    {
      name: "receiveAndDelete in a file that charges",
      code: `${header}const receiver = client.createReceiver("billing", { receiveMode: "receiveAndDelete" });${charge}`,
      errors: [
        {
          messageId: "receiveAndDelete",
          data: { charge: "stripe.paymentIntents.create()" },
          suggestions: [
            {
              messageId: "usePeekLock",
              output: `${header}const receiver = client.createReceiver("billing", { receiveMode: "peekLock" });${charge}`,
            },
          ],
        },
      ],
    },
    {
      name: "the mode in a const, CommonJS",
      filename: "consumer.cjs",
      code: `
const Stripe = require("stripe");
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY);
const MODE = 'receiveAndDelete';
const options = { receiveMode: MODE };
exports.run = (client) => {
  const receiver = client.createReceiver("billing", options);
  return stripe.refunds.create({ charge: "ch_1" }, { idempotencyKey: "refund-ch_1" });
};`,
      languageOptions: { parserOptions: { sourceType: "script" } },
      errors: [{ messageId: "receiveAndDelete", data: { charge: "stripe.refunds.create()" }, suggestions: [] }],
    },
  ],
});
