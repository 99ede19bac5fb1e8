// Dead-letter reasons and descriptions are read by operators (`dlq peek`, the portal, Service Bus Explorer) and often
// quote the message itself (an unknown field's name, a value that failed validation). Anyone with Send on the queue
// writes those bytes, so every reason this consumer writes has its control characters escaped (text/terminal-safe.ts),
// whichever check produced it.
import type { ServiceBusReceiver } from "@azure/service-bus";
import { terminalSafe } from "../core/text/terminal-safe.js";

type DeadLettering = Pick<ServiceBusReceiver, "deadLetterMessage">;

export function safeDeadLetters<R extends DeadLettering>(receiver: R): R {
  const deadLetterMessage: DeadLettering["deadLetterMessage"] = (message, options) => {
    if (options === undefined) return receiver.deadLetterMessage(message);
    const safe = { ...options };
    if (options.deadLetterReason !== undefined) safe.deadLetterReason = terminalSafe(options.deadLetterReason);
    if (options.deadLetterErrorDescription !== undefined) safe.deadLetterErrorDescription = terminalSafe(options.deadLetterErrorDescription);
    return receiver.deadLetterMessage(message, safe);
  };
  return new Proxy(receiver, {
    get(target, property) {
      if (property === "deadLetterMessage") return deadLetterMessage;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
