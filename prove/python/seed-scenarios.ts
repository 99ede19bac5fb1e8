// The seed's Python consumers beside their TypeScript ports (examples/broken/): each pair runs under the same fault,
// on the same sandbox, and must fail the same way. The Python side runs the seed's snippets unchanged (seed/*.py,
// through run_seed.py) with Debian's azure-servicebus 7.8 and stripe-python over the sandbox's AMQPS listener.
import type { InjectedFault, ServiceBusEmulator, StripeEmulator } from "../../sandbox/index.js";

export interface SeedScenario {
  name: string;
  /** The seed's snippet, in prove/python/seed/. */
  snippet: string;
  /** The TypeScript port's name in examples/broken/index.ts. */
  port: string;
  /** The fault, in a sentence. */
  fault: string;
  /** What the seed says happens, and so what both must show. */
  expected: "duplicate charges";
  /** Queue settings: short locks, so a lapsed lock shows within seconds. */
  lockDurationMs: number;
  maxDeliveryCount?: number;
  /** Arms the fault on this run's queue and Stripe before the replicas start; returns the Service Bus faults it set. */
  arm(run: { serviceBus: ServiceBusEmulator; stripe: StripeEmulator; queue: string; events: number }): InjectedFault[];
  /**
   * After the replicas drained the queue: the operator's step, if the scenario has one (the seed's resubmission of
   * dead letters), then the replicas run again.
   */
  operator?: "resubmit_dead_letter";
}

const stripePosts = /^\/v1\/(charges|payment_intents)$/;

export const seedScenarios: readonly SeedScenario[] = [
  {
    name: "lock lost mid-charge",
    snippet: "consumer_no_key.py",
    port: "no-idempotency-key",
    fault: "Stripe takes 3 s on each event's first charge, the lock is 2 s and renewLock answers ServerBusy",
    expected: "duplicate charges",
    lockDurationMs: 2_000,
    arm({ serviceBus, stripe, queue, events }) {
      stripe.faults.inject({ path: stripePosts, method: "POST", action: "latency", ms: 3_000, times: events });
      return [serviceBus.faults.inject({ operation: "renewLock", action: "serverBusy", queue })];
    },
  },
  {
    name: "answer lost after the charge",
    snippet: "consumer_abandon.py",
    port: "abandon-on-timeout",
    fault: "Stripe commits each of the first charges, then drops the connection before answering",
    expected: "duplicate charges",
    lockDurationMs: 2_000,
    arm({ stripe, events }) {
      // Twice per event: stripe-node retries a reset once on its own (with the same key it made up).
      stripe.faults.inject({ path: stripePosts, method: "POST", action: "commitThenDrop", times: 2 * events });
      return [];
    },
  },
  {
    name: "dead letter resubmitted",
    snippet: "consumer_message_id_key.py",
    port: "message-id-key",
    fault: "completing fails (ServerBusy) until the event is dead-lettered; then the seed's resubmission sends it again",
    expected: "duplicate charges",
    // Long enough for the seed's resubmission, which opens a sender per message, to complete each dead letter.
    lockDurationMs: 5_000,
    maxDeliveryCount: 2,
    arm({ serviceBus, queue }) {
      return [serviceBus.faults.inject({ operation: "complete", action: "serverBusy", queue })];
    },
    operator: "resubmit_dead_letter",
  },
];
