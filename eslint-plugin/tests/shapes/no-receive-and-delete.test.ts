// receiveMode values the code computes: a constant object, an enum, a conditional.
import rule from "../../src/rules/no-receive-and-delete.js";
import { inBothModes } from "./both-modes.js";

const header = `
import Stripe from "stripe";
import { ServiceBusClient } from "@azure/service-bus";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
const client = new ServiceBusClient(process.env.SERVICEBUS_CONNECTION_STRING!);
export const charge = (key: string) => stripe.paymentIntents.create({ amount: 1, currency: "usd" }, { idempotencyKey: key });
`;
const error = { messageId: "receiveAndDelete" as const, data: { charge: "stripe.paymentIntents.create()" } };

inBothModes("no-receive-and-delete: computed modes", rule, {
  valid: [
    {
      name: "a constant object whose mode is peekLock",
      code: `${header}
const RECEIVE = { mode: "peekLock", drain: "receiveAndDelete" } as const;
export const receiver = client.createReceiver("billing", { receiveMode: RECEIVE.mode });`,
    },
  ],
  invalid: [
    {
      name: "a member of a constant object",
      code: `${header}
const RECEIVE = { mode: "receiveAndDelete" } as const;
export const receiver = client.createReceiver("billing", { receiveMode: RECEIVE.mode });`,
      errors: [error],
    },
    {
      name: "a conditional that can be receiveAndDelete",
      code: `${header}
export const receiver = client.createReceiver("billing", { receiveMode: process.env.FAST_DRAIN ? "receiveAndDelete" : "peekLock" });`,
      errors: [error],
    },
    {
      name: "an enum member",
      code: `${header}
enum Mode { Safe = "peekLock", Drain = "receiveAndDelete" }
export const receiver = client.createReceiver("billing", { receiveMode: Mode.Drain });`,
      errors: [error],
    },
  ],
});
