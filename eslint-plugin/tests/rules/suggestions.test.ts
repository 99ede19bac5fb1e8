// The editor suggestions of the two key rules and the abandon rule: the code each one writes, and where each is
// withheld because the fix would not be mechanical or would change what the handler charges.
import abandonRule from "../../src/rules/no-abandon-on-stripe-error.js";
import requireRule from "../../src/rules/require-idempotency-key.js";
import stableRule from "../../src/rules/stable-idempotency-key.js";
import { ruleTester } from "../rule-tester.js";

const header = `import Stripe from "stripe";
import type { ServiceBusReceivedMessage, ServiceBusReceiver } from "@azure/service-bus";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);`;
const withImport = header.replace(`"@azure/service-bus";`, `"@azure/service-bus";\nimport { stableKey } from "chargeguard/runtime";`);

const stableData = (source: string, why: string) => ({ source, why });
const PER_MESSAGE = "it is new when a dead-lettered message is resubmitted or a producer re-sends the event";

ruleTester.run("stable-idempotency-key suggestions", stableRule, {
  valid: [],
  invalid: [
    {
      name: "a per-delivery key is replaced by a key of the message body, and stableKey is imported",
      code: `${header}
export async function handle(message: ServiceBusReceivedMessage) {
  await stripe.paymentIntents.create({ amount: 100, currency: "usd" }, { idempotencyKey: message.messageId as string });
}`,
      errors: [
        {
          messageId: "unstableKey",
          data: stableData("messageId", PER_MESSAGE),
          suggestions: [
            {
              messageId: "useStableKey",
              output: `${withImport}
export async function handle(message: ServiceBusReceivedMessage) {
  await stripe.paymentIntents.create({ amount: 100, currency: "usd" }, { idempotencyKey: stableKey({ body: message.body }, { scope: "paymentIntents.create" }) });
}`,
            },
          ],
        },
      ],
    },
    {
      name: "a BullMQ job id is replaced by a key of the job's data, and an existing import is reused",
      code: `import Stripe from "stripe";
import { Worker } from "bullmq";
import { stableKey } from "chargeguard/runtime";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
new Worker("billing", async (job) => {
  await stripe.charges.create({ amount: 100, currency: "usd" }, { idempotencyKey: \`charge-\${job.id}\` });
});`,
      errors: [
        {
          messageId: "unstableKey",
          suggestions: [
            {
              messageId: "useStableKey",
              output: `import Stripe from "stripe";
import { Worker } from "bullmq";
import { stableKey } from "chargeguard/runtime";
const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
new Worker("billing", async (job) => {
  await stripe.charges.create({ amount: 100, currency: "usd" }, { idempotencyKey: stableKey({ body: job.data }, { scope: "charges.create" }) });
});`,
            },
          ],
        },
      ],
    },
    {
      name: "withheld: a random key (no delivery whose payload could key it), and two charges of one kind in the handler",
      code: `${header}
import { randomUUID } from "node:crypto";
export async function handle(message: ServiceBusReceivedMessage) {
  await stripe.refunds.create({ charge: "ch_1" }, { idempotencyKey: randomUUID() });
  await stripe.paymentIntents.create({ amount: 100, currency: "usd" }, { idempotencyKey: \`a-\${message.messageId}\` });
  await stripe.paymentIntents.create({ amount: 200, currency: "usd" }, { idempotencyKey: \`b-\${message.messageId}\` });
}`,
      errors: [
        { messageId: "unstableKey", suggestions: [] },
        { messageId: "unstableKey", suggestions: [] },
        { messageId: "unstableKey", suggestions: [] },
      ],
    },
  ],
});

ruleTester.run("require-idempotency-key suggestions", requireRule, {
  valid: [],
  invalid: [
    {
      name: "a keyless charge in a message handler gets options keyed on the message body",
      code: `${header}
export async function handle(message: ServiceBusReceivedMessage) {
  await stripe.paymentIntents.create({ amount: 100, currency: "usd" });
  await stripe.refunds.create({ charge: "ch_1" }, { stripeAccount: "acct_1" });
}`,
      errors: [
        {
          messageId: "missingKey",
          suggestions: [
            {
              messageId: "addStableKey",
              output: `${withImport}
export async function handle(message: ServiceBusReceivedMessage) {
  await stripe.paymentIntents.create({ amount: 100, currency: "usd" }, { idempotencyKey: stableKey({ body: message.body }, { scope: "paymentIntents.create" }) });
  await stripe.refunds.create({ charge: "ch_1" }, { stripeAccount: "acct_1" });
}`,
            },
          ],
        },
        {
          messageId: "missingKey",
          suggestions: [
            {
              messageId: "addStableKey",
              output: `${withImport}
export async function handle(message: ServiceBusReceivedMessage) {
  await stripe.paymentIntents.create({ amount: 100, currency: "usd" });
  await stripe.refunds.create({ charge: "ch_1" }, { idempotencyKey: stableKey({ body: message.body }, { scope: "refunds.create" }), stripeAccount: "acct_1" });
}`,
            },
          ],
        },
      ],
    },
    {
      name: "withheld: an HTTP handler (no delivery in scope)",
      code: `${header}
export async function POST(request: Request) {
  const { amount } = await request.json();
  return stripe.paymentIntents.create({ amount, currency: "usd" });
}`,
      errors: [{ messageId: "missingKey", suggestions: [] }],
    },
  ],
});

/** A consumer that settles with `settle` when its charge fails. */
const abandoning = (settle: string) => `${header}
export async function handle(receiver: ServiceBusReceiver, message: ServiceBusReceivedMessage) {
  try {
    await stripe.paymentIntents.create({ amount: 100, currency: "usd" }, { idempotencyKey: "k" });
  } catch {
    await ${settle};
  }
}`;

ruleTester.run("no-abandon-on-stripe-error suggestions", abandonRule, {
  valid: [],
  invalid: [
    {
      name: "abandon in a Stripe catch becomes a dead letter with its reason",
      code: abandoning("receiver.abandonMessage(message)"),
      errors: [
        {
          messageId: "abandonAfterCharge",
          suggestions: [
            {
              messageId: "deadLetterInstead",
              output: abandoning(
                'receiver.deadLetterMessage(message, { deadLetterReason: "StripeOutcomeUnknown", deadLetterErrorDescription: "A Stripe call failed after it may have moved money: reconcile before resubmitting." })',
              ),
            },
          ],
        },
      ],
    },
    {
      name: "withheld: an abandon that modifies properties (a dead letter would drop them)",
      code: abandoning('receiver.abandonMessage(message, { failedAt: "stripe" })'),
      errors: [{ messageId: "abandonAfterCharge", suggestions: [] }],
    },
  ],
});
