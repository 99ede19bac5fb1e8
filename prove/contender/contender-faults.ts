// The plan's faults armed against one contender: Stripe faults on its flow's money-moving requests (a slow call also
// makes its message's lock lapse mid-call, as when renewal meets ServerBusy), ServerBusy on renew-lock, and the hooks
// that kill or scale in the replica holding a planned event, each once.
import type { UsageEvent } from "../../runtime/index.js";
import type { ConsumerStep } from "../../runtime/handler/index.js";
import type { StripeFaultRequest } from "../../sandbox/index.js";
import type { ContenderAccount } from "./contender-account.js";
import { contenderQueue, type ContenderSandbox } from "./contender-sandbox.js";
import { killFaults, type FaultHits, type FaultName, type FaultPlan } from "../faults/faults.js";
import { seededRandom } from "../workload/random.js";
import type { HarnessSettings } from "../run/settings.js";
import { injectStripeFaults } from "../faults/stripe-fault-injection.js";

export interface ArmedFaults {
  /** How many times each fault actually hit this contender (planned is not hit: timing decides). */
  readonly hits: FaultHits;
  /** Counts `count` hits of `fault` (the late re-sends count theirs in contender-phases.ts). */
  hit(fault: FaultName, count?: number): void;
  /** A slow Stripe call may still be running: the harness waits for it before it calls a phase settled. */
  slowCallsRunning(): boolean;
  shouldKill(step: ConsumerStep, usage: UsageEvent): boolean;
  shouldScaleIn(step: ConsumerStep, usage: UsageEvent): boolean;
}

export interface FaultTargets {
  plan: FaultPlan;
  settings: HarnessSettings;
  seed: number;
  sandbox: Pick<ContenderSandbox, "servicebus" | "stripe">;
  account: ContenderAccount;
}

export function armContenderFaults({ plan, settings, seed, sandbox, account }: FaultTargets): ArmedFaults {
  const { servicebus, stripe } = sandbox;
  let slowCallsUntil = 0;
  const hits: FaultHits = {};
  const hit = (fault: FaultName, count = 1) => void (hits[fault] = (hits[fault] ?? 0) + count);
  injectStripeFaults({
    onHit: hit,
    faults: stripe.faults,
    plan,
    settings,
    moneyPaths: account.shape.moneyPaths,
    ...(account.shape.observePaths ? { observePaths: account.shape.observePaths } : {}),
    eventOf: (request: StripeFaultRequest) => {
      const target = account.shape.requestTarget(request);
      return account.eventOf(target.customer, target.amount);
    },
    onSlowCall: (event) => {
      slowCallsUntil = Math.max(slowCallsUntil, Date.now() + settings.slowStripeMs + 500);
      setTimeout(() => {
        servicebus.faults.expireLock(contenderQueue, (message) => account.eventOfBody(message.body)?.id === event.id);
      }, Math.min(200, settings.slowStripeMs / 4)).unref();
    },
  });
  if (plan.renewBusyRate > 0) {
    const random = seededRandom(seed).fork("renew-busy");
    const busy = () => {
      const answered = random.chance(plan.renewBusyRate);
      if (answered) hit("renew-busy");
      return answered;
    };
    servicebus.faults.inject({ operation: "renewLock", action: "serverBusy", queue: contenderQueue, when: busy });
  }
  // A hook gets the consumer's parsed event, in its flow's shape.
  const killedAt = new Set<string>();
  const scaledInAt = new Set<string>();
  return {
    hits,
    hit,
    slowCallsRunning: () => Date.now() < slowCallsUntil,
    shouldKill: (step, usage) => {
      const event = account.eventOfBody(usage);
      if (!event || plan.kills.get(event.id) !== step || killedAt.has(event.id)) return false;
      killedAt.add(event.id);
      hit(killFaults[step]);
      return true;
    },
    shouldScaleIn: (_step, usage) => {
      const event = account.eventOfBody(usage);
      if (!event || !plan.scaleIns.has(event.id) || scaledInAt.has(event.id)) return false;
      scaledInAt.add(event.id);
      hit("scale-in");
      return true;
    },
  };
}
