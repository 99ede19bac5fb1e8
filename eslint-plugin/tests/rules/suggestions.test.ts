// The editor suggestions of the two key rules and the abandon rule: the code each one writes, and where each is
// withheld because the fix would not be mechanical or would change what the handler charges.
import abandonRule from "../../src/rules/no-abandon-on-stripe-error.js";
import requireRule from "../../src/rules/require-idempotency-key.js";
import stableRule from "../../src/rules/stable-idempotency-key.js";
import { ruleTester, typedRuleTester } from "../rule-tester.js";

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
          data: { ...stableData("messageId", PER_MESSAGE), call: "paymentIntents.create()", consequence: "charges again" },
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

/** What a consumer file holds around its handler: imports, module declarations, parameters after the message. */
interface Shape {
  imports?: string;
  declarations?: string;
  parameters?: string;
}

/** A consumer that settles with `settle` when its charge fails. */
const abandoning = (settle: string, { imports = "", declarations = "", parameters = "" }: Shape = {}) => `${header}${imports}${declarations}
export async function handle(receiver: ServiceBusReceiver, message: ServiceBusReceivedMessage${parameters}) {
  try {
    await stripe.paymentIntents.create({ amount: 100, currency: "usd" }, { idempotencyKey: "k" });
  } catch {
    await ${settle};
  }
}`;

const deadLetter = (receiver: string) =>
  `${receiver}.deadLetterMessage(message, { deadLetterReason: "StripeOutcomeUnknown", deadLetterErrorDescription: "A Stripe call failed after it may have moved money: reconcile before resubmitting." })`;
/** The dead-letter suggestion alone (no retry offered) for `abandoning(<receiver>.abandonMessage(message), shape)`. */
const deadLetterOnly = (shape: Shape = {}, receiver = "receiver") => [{ messageId: "deadLetterInstead" as const, output: abandoning(deadLetter(receiver), shape) }];

/** Both suggestions, for a file with no import from the handler door: the retry through `sender` (the import added), then the dead letter. */
const retryThenDeadLetter = (shape: Shape, sender: string) => [
  {
    messageId: "retryLater" as const,
    data: { sender },
    output: abandoning(`scheduleRetry(receiver, ${sender}, message)`, { ...shape, imports: `${shape.imports ?? ""}\nimport { scheduleRetry } from "chargeguard/runtime/handler";` }),
  },
  ...deadLetterOnly(shape),
];

const withSender: Shape = { imports: `\nimport type { ServiceBusSender } from "@azure/service-bus";`, parameters: ", sender: ServiceBusSender" };
/** A module-level client whose sender and receiver are made for the queues named. */
const clientShape = (senderQueue: string, receiverQueue: string, imports = ""): Shape => ({
  imports: `\nimport { ServiceBusClient } from "@azure/service-bus";${imports}`,
  declarations: `\nconst client = new ServiceBusClient("c");\nconst queue = "billing";\nconst retries = client.createSender(${senderQueue});\nconst billing = client.createReceiver(${receiverQueue});`,
});

ruleTester.run("no-abandon-on-stripe-error suggestions", abandonRule, {
  valid: [],
  invalid: [
    {
      name: "abandon in a Stripe catch becomes a dead letter with its reason (no sender in scope: no retry offered)",
      code: abandoning("receiver.abandonMessage(message)"),
      errors: [{ messageId: "abandonAfterCharge", suggestions: deadLetterOnly() }],
    },
    {
      name: "with a sender parameter, the first suggestion is the runtime's scheduled retry, and scheduleRetry is imported",
      code: abandoning("receiver.abandonMessage(message)", withSender),
      errors: [
        {
          messageId: "abandonAfterCharge",
          suggestions: retryThenDeadLetter(withSender, "sender"),
        },
      ],
    },
    {
      name: "a sender and a receiver made for the same queue: scheduleRetry joins the file's import from the handler door",
      code: abandoning("billing.abandonMessage(message)", clientShape("queue", "queue", `\nimport { defaultRetryPolicy } from "chargeguard/runtime/handler";`)),
      errors: [
        {
          messageId: "abandonAfterCharge",
          suggestions: [
            {
              messageId: "retryLater",
              data: { sender: "retries" },
              output: abandoning("scheduleRetry(billing, retries, message)", clientShape("queue", "queue", `\nimport { defaultRetryPolicy, scheduleRetry } from "chargeguard/runtime/handler";`)),
            },
            ...deadLetterOnly(clientShape("queue", "queue", `\nimport { defaultRetryPolicy } from "chargeguard/runtime/handler";`), "billing"),
          ],
        },
      ],
    },
    {
      name: "retry withheld: the only sender is made for another queue than the receiver reads",
      code: abandoning("billing.abandonMessage(message)", clientShape(`"invoices"`, "queue")),
      errors: [{ messageId: "abandonAfterCharge", suggestions: deadLetterOnly(clientShape(`"invoices"`, "queue"), "billing") }],
    },
    {
      name: "retry withheld: two senders in scope (which queue would the retry go to?)",
      code: abandoning("receiver.abandonMessage(message)", { ...withSender, parameters: ", sender: ServiceBusSender, audit: ServiceBusSender" }),
      errors: [{ messageId: "abandonAfterCharge", suggestions: deadLetterOnly({ ...withSender, parameters: ", sender: ServiceBusSender, audit: ServiceBusSender" }) }],
    },
    {
      name: "retry withheld: scheduleRetry already names something else in the file",
      code: abandoning("receiver.abandonMessage(message)", { ...withSender, declarations: "\nconst scheduleRetry = () => undefined;" }),
      errors: [{ messageId: "abandonAfterCharge", suggestions: deadLetterOnly({ ...withSender, declarations: "\nconst scheduleRetry = () => undefined;" }) }],
    },
    {
      name: "withheld: an abandon that modifies properties (neither the retry's copy nor a dead letter would carry them)",
      code: abandoning('receiver.abandonMessage(message, { failedAt: "stripe" })', withSender),
      errors: [{ messageId: "abandonAfterCharge", suggestions: [] }],
    },
  ],
});

/** A sender known to be one only by its type: made by a factory of the file, unannotated at the declaration. */
const factorySender: Shape = {
  imports: `\nimport type { ServiceBusSender } from "@azure/service-bus";`,
  declarations: `\ndeclare function retrySender(): ServiceBusSender;\nconst outbound = retrySender();`,
};

ruleTester.run("no-abandon-on-stripe-error suggestions (names only: a factory's sender is not known)", abandonRule, {
  valid: [],
  invalid: [{ code: abandoning("receiver.abandonMessage(message)", factorySender), errors: [{ messageId: "abandonAfterCharge", suggestions: deadLetterOnly(factorySender) }] }],
});

typedRuleTester.run("no-abandon-on-stripe-error suggestions (typed: the checker knows the factory's sender)", abandonRule, {
  valid: [],
  invalid: [
    {
      code: abandoning("receiver.abandonMessage(message)", factorySender),
      options: [{ typeChecked: true }],
      errors: [
        {
          messageId: "abandonAfterCharge",
          suggestions: retryThenDeadLetter(factorySender, "outbound"),
        },
      ],
    },
  ],
});
