// Sessions are not emulated: every emulated queue is a queue without sessions (RequiresSession false). A session
// receiver (the SDKs' acceptSession / acceptNextSession, Python's get_queue_receiver(session_id=...)) attaches with a
// `com.microsoft:session-filter` on its source; Service Bus refuses that link on such a queue, and so does the
// emulator, with the same error, rather than hand it other sessions' messages under the session id it asked for.
import type { AmqpError } from "./transfer-answers.js";

const sessionFilter = "com.microsoft:session-filter";

/** Whether a receive link's source asks for a session (any session, or a named one). */
export function asksForSession(source: unknown): boolean {
  const filter = (source as { filter?: unknown } | undefined)?.filter;
  return typeof filter === "object" && filter !== null && Object.hasOwn(filter, sessionFilter);
}

/** Service Bus's refusal of a session receiver on a queue that does not require sessions. */
export const sessionReceiverRefused: AmqpError = {
  condition: "amqp:not-allowed",
  description:
    "A sessionful message receiver cannot be created on an entity that does not require sessions. Ensure " +
    "RequiresSession is set to true when creating a Queue or Subscription to enable sessionful behavior.",
};
