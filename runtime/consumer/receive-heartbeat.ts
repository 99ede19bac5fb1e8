// Whether the consumer's receive loop turns: the container's liveness. A turn is a message received or finished, or,
// while the queue is idle, the broker answering a peek over the receiver's own connection (the SDK's subscription
// reports nothing while no message arrives, so an idle loop must be asked). A paused intake (a breaker open, a
// refused key) turns too: it is the consumer's decision, and a restart would not close the breaker. Stalled: no turn
// for `stallMs` (tuning's receiveStallMs, from the queue's lock), or a message in flight past its hold plus a stall.
import type { ServiceBusReceiver } from "@azure/service-bus";
import { describeMs, inFlightStallMs, RECEIVE_PROBE_EVERY_MS, receiveStallMs } from "../../tuning/index.js";

export interface ReceiveLiveness {
  /** The receive loop turned within `stallMs`, and no message is stuck in flight. */
  live: boolean;
  /** When it last turned (ms since the epoch). */
  lastTurnAt: number;
  stallMs: number;
  /** Why it is not live, in words; absent when live. */
  reason?: string;
}

export interface HeartbeatSettings {
  /** The queue's lock (the tuning's lockDurationMs); default Service Bus's PT1M. */
  lockDurationMs?: number;
  /** How long a message may be held (ResolvedConsumerSettings.heldMs). */
  heldMs: number;
  /** Between idle probes; default RECEIVE_PROBE_EVERY_MS. */
  probeEveryMs?: number;
  now?: () => number;
}

export interface ReceiveHeartbeat {
  /** The loop turned now. */
  turned(): void;
  liveness(): ReceiveLiveness;
  /**
   * Peeks each `probeEveryMs` without a turn, unless `skip()` says why not, counting each answer as one while the
   * subscription's receive link is open (receiveLinkOpen); returns the stop.
   */
  probe(receiver: Pick<ServiceBusReceiver, "peekMessages">, skip: () => "paused" | "stopped" | undefined): () => void;
}

/**
 * Whether the SDK's subscription has its receive link open. A peek travels on the management link, which may answer
 * while the receive link is detached and its re-attach refused (the SDK retries that for ever, reporting errors): an
 * answered peek proves the receive loop only with the link open. @azure/service-bus 7.9 keeps the subscription's
 * receiver in a private field, read defensively: undefined where an SDK has no such field (the peek alone decides).
 */
export function receiveLinkOpen(receiver: unknown): boolean | undefined {
  const streaming = (receiver as { _streamingReceiver?: { isOpen?: unknown } } | null)?._streamingReceiver;
  return typeof streaming?.isOpen === "function" ? Boolean((streaming.isOpen as () => unknown).call(streaming)) : undefined;
}

export function receiveHeartbeat(settings: HeartbeatSettings, oldestInFlightSince: () => number | undefined): ReceiveHeartbeat {
  const now = settings.now ?? Date.now;
  const probeEveryMs = settings.probeEveryMs ?? RECEIVE_PROBE_EVERY_MS;
  const stallMs = receiveStallMs(settings.lockDurationMs, probeEveryMs);
  const stuckMs = inFlightStallMs(settings.heldMs, stallMs);
  let lastTurnAt = now();
  /** The last turn was a message's (not a peek's): the loop showed it turns without being asked. */
  let byMessage = false;
  /** The last peek was answered with the subscription's receive link down. */
  let linkDown = false;
  const turned = () => {
    lastTurnAt = now();
    byMessage = true;
    linkDown = false;
  };
  const answered = () => {
    lastTurnAt = now();
    byMessage = false;
  };
  return {
    turned,
    liveness() {
      const at = now();
      const oldest = oldestInFlightSince();
      const reason =
        at - lastTurnAt > stallMs
          ? `the receive loop has not turned for ${describeMs(at - lastTurnAt)} (no message, ${linkDown ? "its receive link down though the broker answers peeks" : "no answer to a peek"}), longer than ${describeMs(stallMs)}`
          : oldest !== undefined && at - oldest > stuckMs
            ? `a message has been in flight for ${describeMs(at - oldest)}, longer than its hold plus a stall (${describeMs(stuckMs)})`
            : undefined;
      return reason === undefined ? { live: true, lastTurnAt, stallMs } : { live: false, lastTurnAt, stallMs, reason };
    },
    probe(receiver, skip) {
      let probing = false;
      const timer = setInterval(() => {
        const skipped = skip();
        if (skipped === "paused") return answered();
        // A busy loop turns by itself: a peek is asked only of an interval in which no message turned it.
        if (skipped === "stopped" || probing || (byMessage && now() - lastTurnAt < probeEveryMs)) return;
        probing = true;
        // A probe that outlives its interval is no answer; the next one asks again.
        receiver
          .peekMessages(1, { abortSignal: AbortSignal.timeout(probeEveryMs) })
          .then(() => {
            linkDown = receiveLinkOpen(receiver) === false;
            if (!linkDown) answered();
          }, () => undefined)
          .finally(() => (probing = false));
      }, probeEveryMs);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
