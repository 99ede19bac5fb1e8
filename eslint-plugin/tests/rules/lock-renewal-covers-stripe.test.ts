import rule from "../../src/rules/lock-renewal-covers-stripe.js";
import { ruleTester } from "../rule-tester.js";

const DEFAULTS = "stripe-node's defaults: 3 attempts of 80 s plus 1.5 s of backoff";
const FROM_CLIENT = "timeout x (maxNetworkRetries + 1) plus backoff of the Stripe client in this file";

const header = `
import Stripe from "stripe";
import { ServiceBusClient } from "@azure/service-bus";
const client = new ServiceBusClient(process.env.SERVICEBUS_CONNECTION_STRING!);
`;


/** What `chargeguard plan --stack dev` answers for usage-billing: 30 s x 3 attempts, one PT2M lock, renewal 0. */
const planned = `${header}
const stripe = new Stripe(process.env.STRIPE_API_KEY!, { timeout: 30000, maxNetworkRetries: 2 });
const receiver = client.createReceiver("usage-billing", { receiveMode: "peekLock", maxAutoLockRenewalDurationInMs: 0 });`;

ruleTester.run("lock-renewal-covers-stripe", rule, {
  valid: [
    {
      name: "the plan's answer: renewal 0 when the queue's lock (lockDurationMs, PT2M) outlasts the client's worst case (91.5 s)",
      code: planned,
      options: [{ lockDurationMs: 120_000 }],
    },
    {
      name: "a lock that outlasts the call accepts any renewal deadline",
      code: `${header}
const stripe = new Stripe("rk_test_sandbox", { timeout: 30000, maxNetworkRetries: 2 });
const receiver = client.createReceiver("billing", { maxAutoLockRenewalDurationInMs: 10_000 });`,
      options: [{ lockDurationMs: 91_500 }],
    },
    {
      name: "the SDK's default (300 s) covers stripe-node's defaults",
      code: `${header}
const stripe = new Stripe("rk_test_sandbox");
const receiver = client.createReceiver("billing");`,
    },
    {
      name: "renewal longer than the client's worst case (10 s x 2 + 0.5 s of backoff = 20.5 s)",
      code: `${header}
const STRIPE_TIMEOUT_MS = 10_000;
const stripe = new Stripe("rk_test_sandbox", { timeout: STRIPE_TIMEOUT_MS, maxNetworkRetries: 1 });
const receiver = client.createReceiver("billing", { maxAutoLockRenewalDurationInMs: 2 * STRIPE_TIMEOUT_MS + 5_000 });`,
    },
    {
      name: "a value the file does not fix is not judged",
      code: `${header}
declare const settings: { renewMs: number };
const receiver = client.createReceiver("billing", { maxAutoLockRenewalDurationInMs: settings.renewMs });`,
    },
    {
      name: "a client whose options are not known statically leaves the budget unknown",
      code: `${header}
declare const timeout: number;
const stripe = new Stripe("rk_test_sandbox", { timeout, maxNetworkRetries: 0 });
const receiver = client.createReceiver("billing", { maxAutoLockRenewalDurationInMs: 30_000 });`,
    },
    {
      name: "the team's own budget",
      code: `${header}
const receiver = client.createReceiver("billing", { maxAutoLockRenewalDurationInMs: 120_000 });`,
      options: [{ stripeCallBudgetMs: 100_000 }],
    },
    {
      name: "a dead-letter receiver (an operator's resubmission tool) never bills",
      code: `${header}
const stripe = new Stripe("rk_test_sandbox");
const dlq = client.createReceiver("billing", { subQueueType: "deadLetter", maxAutoLockRenewalDurationInMs: 0 });`,
    },
    {
      name: "a receiver in a file with nothing of Stripe",
      code: `
import { ServiceBusClient } from "@azure/service-bus";
const receiver = new ServiceBusClient(process.env.SB!).createReceiver("audit", { maxAutoLockRenewalDurationInMs: 0 });`,
    },
    {
      name: "not receiver options (a test harness setting of the same name)",
      code: `
const harness = { maxAutoLockRenewalDurationInMs: 0 };
export default harness;`,
    },
  ],
  invalid: [
    {
      name: "the plan's answer without the queue's lock: the rule cannot know one lock covers the call",
      code: planned,
      errors: [
        {
          messageId: "renewalDisabled",
          data: { budget: "91500", basis: FROM_CLIENT, lock: "none given" },
          suggestions: [{ messageId: "raiseRenewal", data: { budget: "91500" }, output: planned.replace("maxAutoLockRenewalDurationInMs: 0", "maxAutoLockRenewalDurationInMs: 91500") }],
        },
      ],
    },
    {
      name: "renewal 0 with a queue lock shorter than the client's worst case (PT1M < 91.5 s)",
      code: planned,
      options: [{ lockDurationMs: 60_000 }],
      errors: [
        {
          messageId: "renewalDisabled",
          data: { budget: "91500", basis: FROM_CLIENT, lock: "60000 ms given is shorter" },
          suggestions: [{ messageId: "raiseRenewal", data: { budget: "91500" }, output: planned.replace("maxAutoLockRenewalDurationInMs: 0", "maxAutoLockRenewalDurationInMs: 91500") }],
        },
      ],
    },
    {
      name: "renewal disabled",
      code: `${header}
const receiver = client.createReceiver("billing", { receiveMode: "peekLock", maxAutoLockRenewalDurationInMs: 0 });`,
      errors: [
        {
          messageId: "renewalDisabled",
          data: { budget: "241500", basis: DEFAULTS, lock: "none given" },
          suggestions: [
            {
              messageId: "raiseRenewal",
              data: { budget: "241500" },
              output: `${header}
const receiver = client.createReceiver("billing", { receiveMode: "peekLock", maxAutoLockRenewalDurationInMs: 241500 });`,
            },
          ],
        },
      ],
    },
    {
      name: "seed 003 failure mode 3: renewal equal to the lock duration (60 s) against stripe-node's defaults",
      code: `${header}
const LOCK_DURATION_MS = 60_000;
receiver.subscribe({ processMessage: async () => {}, processError: async () => {} }, { maxAutoLockRenewalDurationInMs: LOCK_DURATION_MS });
declare const receiver: ReturnType<typeof client.createReceiver>;`,
      errors: [
        {
          messageId: "renewalTooShort",
          data: { value: "60000", budget: "241500", basis: DEFAULTS },
          suggestions: [
            {
              messageId: "raiseRenewal",
              data: { budget: "241500" },
              output: `${header}
const LOCK_DURATION_MS = 60_000;
receiver.subscribe({ processMessage: async () => {}, processError: async () => {} }, { maxAutoLockRenewalDurationInMs: 241500 });
declare const receiver: ReturnType<typeof client.createReceiver>;`,
            },
          ],
        },
      ],
    },
    {
      name: "the file's client allows 30 s x 3 + 1.5 s = 91.5 s; options in a const, used by spread",
      code: `${header}
const stripe = new Stripe("rk_test_sandbox", { timeout: 30 * 1000, maxNetworkRetries: 2 });
const renewal = { maxAutoLockRenewalDurationInMs: 90_000 };
const receiver = client.createReceiver("billing", { ...renewal, receiveMode: "peekLock" });`,
      errors: [
        {
          messageId: "renewalTooShort",
          data: { value: "90000", budget: "91500", basis: FROM_CLIENT },
          suggestions: [
            {
              messageId: "raiseRenewal",
              data: { budget: "91500" },
              output: `${header}
const stripe = new Stripe("rk_test_sandbox", { timeout: 30 * 1000, maxNetworkRetries: 2 });
const renewal = { maxAutoLockRenewalDurationInMs: 91500 };
const receiver = client.createReceiver("billing", { ...renewal, receiveMode: "peekLock" });`,
            },
          ],
        },
      ],
    },
    {
      name: "a fallback below the budget of a client with a raised timeout (120 s x 3 + 1.5 s; the spread is not followed)",
      code: `${header}
declare const shared: { host?: string };
declare const settings: { renewMs?: number };
const queueLockDurationMs = 60_000;
const stripe = new Stripe("rk_test_sandbox", { timeout: 120_000, ...shared });
const receiver = client.createReceiver("billing", { maxAutoLockRenewalDurationInMs: settings.renewMs ?? queueLockDurationMs });`,
      errors: [
        {
          messageId: "renewalTooShort",
          data: { value: "60000", budget: "361500", basis: FROM_CLIENT },
          suggestions: [
            {
              messageId: "raiseRenewal",
              data: { budget: "361500" },
              output: `${header}
declare const shared: { host?: string };
declare const settings: { renewMs?: number };
const queueLockDurationMs = 60_000;
const stripe = new Stripe("rk_test_sandbox", { timeout: 120_000, ...shared });
const receiver = client.createReceiver("billing", { maxAutoLockRenewalDurationInMs: settings.renewMs ?? 361500 });`,
            },
          ],
        },
      ],
    },
    {
      name: "a shorthand property below the team's budget (CommonJS)",
      filename: "consumer.cjs",
      code: `
const { ServiceBusClient } = require("@azure/service-bus");
const stripe = require("stripe");
const maxAutoLockRenewalDurationInMs = 45000;
const receiver = new ServiceBusClient(process.env.SB).createReceiver("billing", { maxAutoLockRenewalDurationInMs });`,
      languageOptions: { parserOptions: { sourceType: "script" } },
      options: [{ stripeCallBudgetMs: 60_000 }],
      errors: [
        {
          messageId: "renewalTooShort",
          data: { value: "45000", budget: "60000", basis: "the configured stripeCallBudgetMs" },
          suggestions: [
            {
              messageId: "raiseRenewal",
              data: { budget: "60000" },
              output: `
const { ServiceBusClient } = require("@azure/service-bus");
const stripe = require("stripe");
const maxAutoLockRenewalDurationInMs = 45000;
const receiver = new ServiceBusClient(process.env.SB).createReceiver("billing", { maxAutoLockRenewalDurationInMs: 60000 });`,
            },
          ],
        },
      ],
    },
  ],
});
