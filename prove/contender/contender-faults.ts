// The plan's faults armed against one contender: Stripe faults on its flow's money-moving requests (a slow call also
// makes its message's lock lapse mid-call, as when renewal meets ServerBusy), ServerBusy on renew-lock, and the hooks
// that kill or scale in the replica holding a planned event, each once.
import type { UsageEvent } from "../../runtime/index.js";
import type { ConsumerStep } from "../../runtime/handler/index.js";
import type { StripeFaultRequest } from "../../sandbox/index.js";
import type { ContenderAccount } from "./contender-account.js";
import { contenderQueue, type ContenderSandbox } from "./contender-sandbox.js";
import type { FaultPlan } from "../faults/faults.js";
import { seededRandom } from "../workload/random.js";
import type { HarnessSettings } from "../run/settings.js";
import { injectStripeFaults } from "../faults/stripe-fault-injection.js";

export interface ArmedFaults {
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
  injectStripeFaults({
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
    servicebus.faults.inject({ operation: "renewLock", action: "serverBusy", queue: contenderQueue, when: () => random.chance(plan.renewBusyRate) });
  }
  // A hook gets the consumer's parsed event, in its flow's shape.
  const killedAt = new Set<string>();
  const scaledInAt = new Set<string>();
  return {
    slowCallsRunning: () => Date.now() < slowCallsUntil,
    shouldKill: (step, usage) => {
      const event = account.eventOfBody(usage);
      if (!event || plan.kills.get(event.id) !== step || killedAt.has(event.id)) return false;
      killedAt.add(event.id);
      return true;
    },
    shouldScaleIn: (_step, usage) => {
      const event = account.eventOfBody(usage);
      if (!event || !plan.scaleIns.has(event.id) || scaledInAt.has(event.id)) return false;
      scaledInAt.add(event.id);
      return true;
    },
  };
}
