// The per-message billing flow (ARCHITECTURE.md, "How a billing event travels"): parse -> stable key -> claim -> Stripe -> record
// -> settle, each step in runtime/handler/. One function per message; it never throws and never abandons (see
// settlement-policy.ts for why).
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import { describeError } from "../core/describe-error.js";
import type { FlowResult } from "./flow-result.js";
import type { BillingHandler, BillingHandlerDeps } from "./handler-deps.js";
import { guardedCharge } from "./guarded-charge.js";
import { handlerSettings, withDeliveryPorts, type HandlerSettings } from "./handler-settings.js";
import { isPrepared, prepareBilling } from "./prepare-billing.js";
import { settleMessage } from "./settle-message.js";
import { stepBoundaries, Stopped, type StepBoundary } from "./step-boundary.js";
import { deadlineOf, waitsOf } from "./event-deadline.js";
import { attemptOf, chainIdOf } from "./retry-chain.js";
import { outcomeLabel, settle } from "./settlement-policy.js";

export type { BillingHandler, BillingHandlerDeps, DeliveryPorts, MessageSettler, RetryScheduler } from "./handler-deps.js";

export function createBillingHandler(deps: BillingHandlerDeps): BillingHandler {
  const resolved = handlerSettings(deps);
  return async (message, receiver, sender, ports) => {
    const settings = ports === undefined ? resolved : withDeliveryPorts(resolved, ports);
    const step = stepBoundaries(settings, message);
    const ended = await runFlow(settings, message, step);
    if (ended === stopped) return;
    const { outcome, event, billing } = ended;
    const chainId = chainIdOf(message);
    const attempt = { attempt: attemptOf(message.applicationProperties), chainId, idempotencyKey: ended.idempotencyKey ?? chainId };
    const now = Date.now();
    const deadline = deadlineOf(message);
    const action = settle(outcome, { ...attempt, waits: waitsOf(message.applicationProperties), deadline, now }, settings.policy);
    const who = billing ? Object.values(billing.key).join(" ") : `message ${String(message.messageId)}`;
    if (settings.hook !== undefined && event !== undefined && (await crossBeforeComplete(settings, step, event, who)) === stopped) return;
    await settleMessage(settings, { message, action, outcomeKind: outcomeLabel(outcome), chainId, who, deadline }, receiver, sender);
  };
}

/** A hook froze the flow and the consumer stopped meanwhile. */
const stopped = Symbol("stopped");

/** Steps 1-5: everything up to, not including, settling the message. Never throws (a throw abandons). */
async function runFlow(settings: HandlerSettings, message: ServiceBusReceivedMessage, step: StepBoundary): Promise<FlowResult | typeof stopped> {
  try {
    const prepared = await prepareBilling(settings, message.body);
    return isPrepared(prepared) ? await guardedCharge(settings, prepared, step) : prepared;
  } catch (error) {
    if (error instanceof Stopped) return stopped;
    // A bug or an unforeseen failure: the outcome is unknown, never a reason to throw.
    return { outcome: { kind: "unknown", detail: `unexpected: ${describeError(error)}` } };
  }
}

/** The last boundary, before settling: a hook that fails is logged, not a reason to leave the message unsettled. */
async function crossBeforeComplete(settings: HandlerSettings, step: StepBoundary, event: unknown, who: string): Promise<typeof stopped | undefined> {
  try {
    await step("beforeComplete", event);
  } catch (error) {
    if (error instanceof Stopped) return stopped;
    settings.log(`${who}: hook failed: ${describeError(error)}`);
  }
  return undefined;
}
