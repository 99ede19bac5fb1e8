// One formula for the Stripe worst case. The plugin imports nothing of the other rooms, so it carries a copy of
// chargeguard/tuning's worstCaseStripeMs: this proves the copy equal over a grid of inputs, and proves that what
// `chargeguard plan` answers for every queue of the repository's stacks lints clean under the rule (real ESLint).
import { ESLint } from "eslint";
import fc from "fast-check";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import plugin from "../../eslint-plugin/src/index.js";
import {
  STRIPE_DEFAULT_MAX_NETWORK_RETRIES,
  STRIPE_DEFAULT_TIMEOUT_MS,
  worstCaseCallMs,
} from "../../eslint-plugin/src/rules/lock-renewal-covers-stripe/stripe-call-budget.js";
import { planStack } from "../../infra/plan/index.js";
import { MAX_STRIPE_RETRIES, MAX_STRIPE_TIMEOUT_MS, parseIsoDuration, worstCaseStripeMs } from "../../tuning/index.js";

describe("the lint rule's Stripe worst case is the tuning's", () => {
  it("agrees on every retry count the tuning accepts, across timeouts from 1 ms to its maximum", () => {
    const timeouts = [1, 999, 1_000, 2_000, 20_000, 30_000, 80_000, 123_457, MAX_STRIPE_TIMEOUT_MS];
    for (let retries = 0; retries <= MAX_STRIPE_RETRIES; retries++) {
      for (const timeoutMs of timeouts) {
        expect(worstCaseCallMs(timeoutMs, retries), `${timeoutMs} ms x ${retries} retries`).toBe(worstCaseStripeMs({ timeoutMs, maxNetworkRetries: retries }));
      }
    }
  });

  it("agrees on random inputs, retries beyond the tuning's limit included", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_STRIPE_TIMEOUT_MS }), fc.integer({ min: 0, max: 60 }), (timeoutMs, retries) => {
        expect(worstCaseCallMs(timeoutMs, retries)).toBe(worstCaseStripeMs({ timeoutMs, maxNetworkRetries: retries }));
      }),
      { numRuns: 2_000 },
    );
  });

  it("stripe-node's defaults: 3 x 80 s + 0.5 s + 1 s = 241.5 s in both", () => {
    expect(worstCaseCallMs(STRIPE_DEFAULT_TIMEOUT_MS, STRIPE_DEFAULT_MAX_NETWORK_RETRIES)).toBe(241_500);
    expect(worstCaseStripeMs({ timeoutMs: STRIPE_DEFAULT_TIMEOUT_MS, maxNetworkRetries: STRIPE_DEFAULT_MAX_NETWORK_RETRIES })).toBe(241_500);
  });

  it("a huge written retry count is counted, not looped", () => {
    expect(worstCaseCallMs(1, 1e9)).toBe(1e9 + 1 + 7_500 + (1e9 - 4) * 5_000);
  });
});

/** The consumer code the plan's numbers describe: a Stripe client and a receiver configured exactly so. */
function consumerFor(queue: string, consumer: { stripeTimeoutMs: number; stripeMaxNetworkRetries: number; maxAutoLockRenewalDurationInMs: number }): string {
  return `import Stripe from "stripe";
import { ServiceBusClient } from "@azure/service-bus";
const stripe = new Stripe(process.env.STRIPE_API_KEY!, { timeout: ${consumer.stripeTimeoutMs}, maxNetworkRetries: ${consumer.stripeMaxNetworkRetries} });
const receiver = new ServiceBusClient(process.env.SERVICEBUS_CONNECTION_STRING!).createReceiver(${JSON.stringify(queue)}, {
  receiveMode: "peekLock",
  maxAutoLockRenewalDurationInMs: ${consumer.maxAutoLockRenewalDurationInMs},
});
export { stripe, receiver };
`;
}

async function lockRenewalFindings(code: string, options: Record<string, number>): Promise<string[]> {
  const eslint = new ESLint({
    overrideConfigFile: true,
    overrideConfig: [
      { files: ["**/*.ts"] },
      tseslint.configs.base,
      { plugins: plugin.configs.recommended.plugins, rules: { "chargeguard/lock-renewal-covers-stripe": ["error", options] } },
    ],
  });
  const [result] = await eslint.lintText(code, { filePath: "consumer.ts" });
  return (result?.messages ?? []).map((message) => `${message.ruleId ?? "fatal"}: ${message.message}`);
}

describe("what `chargeguard plan` answers lints clean", () => {
  it.each(["dev", "prod"])("every queue of the %s stack, with the queue's lock given to the rule", async (stack) => {
    const { report } = await planStack({ stack });
    expect(report.queues.length).toBeGreaterThan(0);
    for (const queue of report.queues) {
      const code = consumerFor(queue.name, queue.consumer);
      expect(await lockRenewalFindings(code, { lockDurationMs: parseIsoDuration(queue.lockDuration) }), `${stack}/${queue.name}`).toEqual([]);
    }
  });

  it("the dev stack's renewal 0 is flagged only when the rule is not told the queue's lock", async () => {
    const { report } = await planStack({ stack: "dev" });
    const usage = report.queues.find((queue) => queue.name === "usage-billing");
    expect(usage?.consumer).toEqual({ maxAutoLockRenewalDurationInMs: 0, stripeTimeoutMs: 30_000, stripeMaxNetworkRetries: 2 });
    const findings = await lockRenewalFindings(consumerFor("usage-billing", usage!.consumer), {});
    expect(findings).toEqual([expect.stringMatching(/^chargeguard\/lock-renewal-covers-stripe: .*Renew for at least 91500 ms/)]);
  });
});
