// Step 6 of the flow (ARCHITECTURE.md, "How a billing event travels"): carry out the settlement table's action. Never throws and never abandons (see
// settlement-policy.ts for why): a failed settlement is logged with what the broker will do about it.
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import { isServiceBusError } from "../sdk/service-bus-error.js";
import type { MessageSettler, RetryScheduler } from "./handler-deps.js";
import { leftOnQueue } from "./configuration-fault.js";
import { retryMessage } from "./retry-chain.js";
import { onSettleFailure, type SettlementAction } from "./settlement-policy.js";
import { describeError } from "../core/describe-error.js";
import type { HandlerSettings } from "./handler-settings.js";

export interface Settlement {
  message: ServiceBusReceivedMessage;
  action: SettlementAction;
  /** The outcome for the log line: its kind, and the Stripe object that holds the money when there is one. */
  outcomeKind: string;
  chainId: string;
  /** Who the log lines are about: the billing's key, or the message id. */
  who: string;
  /** The event's deadline (epoch ms): a retry expires then. */
  deadline?: number;
}

/** Only the log is read: the one-call retry (scheduled-retry.ts) settles through here without a handler's settings. */
type SettleSettings = Pick<HandlerSettings, "log">;

/** Resolves true when the message was settled as the action says (a retry: scheduled, then completed). */
export async function settleMessage(settings: SettleSettings, settlement: Settlement, receiver: MessageSettler, sender: RetryScheduler): Promise<boolean> {
  const { message, action, who } = settlement;
  const { log } = settings;
  switch (action.action) {
    case "complete": {
      const completed = await settleSafely(settings, who, "complete", () => receiver.completeMessage(message));
      log(`${who}: ${settlement.outcomeKind}${completed ? ", completed" : ""}`);
      return completed;
    }
    case "dead-letter": {
      const deadLettered = await settleSafely(settings, who, "dead-letter", () =>
        receiver.deadLetterMessage(message, { deadLetterReason: action.reason, deadLetterErrorDescription: action.description.slice(0, 1024) }),
      );
      // Behind a configuration fault gate (the consumer's), Stripe refusing the key pauses intake instead.
      if (leftOnQueue(message)) log(`${who}: paused on ${action.reason}, message left on the queue (not dead-lettered): ${action.description}`);
      else log(`${who}: dead-lettered ${action.reason}: ${action.description}`);
      return deadLettered;
    }
    case "retry-later": {
      const scheduled = await settleSafely(settings, who, "scheduling the retry", async () => {
        await sender.scheduleMessages(
          retryMessage(message, {
            messageId: action.messageId,
            attempt: action.attempt,
            chainId: settlement.chainId,
            reason: action.description,
            ...(action.waits === undefined ? {} : { waits: action.waits }),
            ...(settlement.deadline === undefined ? {} : { deadline: settlement.deadline }),
          }),
          new Date(Date.now() + action.delayMs),
        );
      });
      if (!scheduled) {
        // Not completed: the lock lapses at the renewal deadline and the broker redelivers. Still no abandon.
        log(`${who}: retry not scheduled; leaving the message to its lock (redelivery after the renewal deadline)`);
        return false;
      }
      const completed = await settleSafely(settings, who, "complete after scheduling the retry", () => receiver.completeMessage(message));
      const what = action.waits === undefined ? `outcome unknown (${action.description}); retry ${action.attempt}` : `${action.description}; wait ${action.waits}`;
      log(`${who}: ${what} as ${action.messageId} in ${action.delayMs} ms`);
      return completed;
    }
  }
}

/** Runs one settlement call; a failure is logged with what happens to the message next, and answered false. */
async function settleSafely(settings: SettleSettings, who: string, what: string, operation: () => Promise<void>): Promise<boolean> {
  try {
    await operation();
    return true;
  } catch (error) {
    const code = isServiceBusError(error) ? error.code : undefined;
    settings.log(`${who}: ${what} failed (${code ?? describeError(error)}): ${onSettleFailure(code).note}`);
    return false;
  }
}
