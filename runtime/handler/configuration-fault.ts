// A Stripe key that Stripe refuses (401 authentication, 403 permission: revoked, rolled, wrong account, missing
// rights) is a fault of the deployment, not of the message: every message would fail the same way, and dead-lettering
// them would empty the queue into the DLQ in seconds. So the consumer stops taking messages, says so, leaves the
// messages in the queue (each one it met kept as a wait, spending no delivery), and probes Stripe with backoff until
// the key works again.
import type { ServiceBusReceivedMessage, ServiceBusReceiver } from "@azure/service-bus";
import type Stripe from "stripe";
import { describeError } from "../core/describe-error.js";
import { isStripeKeyRefusal } from "../stripe/stripe-error.js";

/** The dead-letter reason the settlement table gives a configuration outcome (settlement-policy.ts). */
export const configurationFaultReason = "StripeConfigurationError";

/** Messages a gate gave back to the queue instead of dead-lettering them: their settlement is no dead letter. */
const keptOnQueue = new WeakSet<ServiceBusReceivedMessage>();

/** True when a configuration fault gate left this message on the queue (paused) instead of dead-lettering it. */
export function leftOnQueue(message: ServiceBusReceivedMessage): boolean {
  return keptOnQueue.has(message);
}

export interface ConfigurationFaultOptions {
  log: (line: string) => void;
  /** Stop taking messages (close the subscription); in-flight ones finish. */
  pause: () => Promise<void>;
  /** Take messages again. */
  resume: () => void;
  /**
   * Asks Stripe whether the key works now: resolves when it does, rejects when Stripe still refuses it. Absent: the
   * gate resumes after the backoff and the next message is the probe.
   */
  probe?: () => Promise<void>;
  /**
   * Keeps a message Stripe refused the key for until the key works (handler/pause-wait.ts: a wait, a copy scheduled
   * and the original completed, so no delivery is spent, as an abandon would).
   */
  keep: (message: ServiceBusReceivedMessage, detail: string) => Promise<void>;
  /** Told once per fault (an alert hook); the consumer also logs it. */
  onFault?: (detail: string) => void;
  /** First wait before probing; doubles per refused probe up to `maxProbeDelayMs`. Defaults 30 s and 5 min. */
  firstProbeDelayMs?: number;
  maxProbeDelayMs?: number;
}

export interface ConfigurationFaultGate {
  /** The receiver the billing handler settles through: a configuration dead-letter becomes an abandon and pauses. */
  receiver(receiver: ServiceBusReceiver): ServiceBusReceiver;
  /** True while paused: a message delivered meanwhile goes back untouched (the caller abandons it). */
  readonly paused: boolean;
  /** Stops probing (the consumer is closing). */
  close(): void;
}

/**
 * A probe of the key billing uses (`client`: the vault's key for the period billed, else the environment's) with a
 * request that key may make (flows/key-probe.ts). Refusals reject; anything else counts as working.
 */
export function stripeKeyProbe(client: () => Promise<Stripe>, request: (stripe: Stripe) => Promise<unknown>): () => Promise<void> {
  return async () => {
    const stripe = await client();
    try {
      await request(stripe);
    } catch (error) {
      if (isStripeKeyRefusal(error)) throw error;
      // An outage or a rate limit is not a key problem: resume, and the retry path handles the rest.
    }
  };
}

export function configurationFaultGate(options: ConfigurationFaultOptions): ConfigurationFaultGate {
  const first = options.firstProbeDelayMs ?? 30_000;
  const max = Math.max(first, options.maxProbeDelayMs ?? 300_000);
  let paused = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const schedule = (delayMs: number) => {
    if (closed) return;
    timer = setTimeout(() => void probeThenResume(delayMs), delayMs);
    timer.unref();
  };
  const probeThenResume = async (waitedMs: number) => {
    if (closed) return;
    try {
      await options.probe?.();
    } catch (error) {
      const next = Math.min(max, waitedMs * 2);
      options.log(`Stripe still refuses the key (${describeError(error)}): still paused, next probe in ${Math.round(next / 1000)} s`);
      schedule(next);
      return;
    }
    paused = false;
    options.log(options.probe ? "Stripe accepts the key again: taking messages" : "taking messages again to try the key");
    options.resume();
  };
  const trip = (detail: string) => {
    if (paused || closed) return;
    paused = true;
    options.log(
      `configuration fault: Stripe refused the key (${detail}). Stopped taking messages; they stay in the queue ` +
        `(not dead-lettered). Fix the key (STRIPE_API_KEY or the vault); probing in ${Math.round(first / 1000)} s`,
    );
    options.onFault?.(detail);
    void options.pause().finally(() => schedule(first));
  };

  return {
    receiver(receiver) {
      const deadLetterMessage: ServiceBusReceiver["deadLetterMessage"] = async (message: ServiceBusReceivedMessage, details) => {
        if (details?.deadLetterReason !== configurationFaultReason) return receiver.deadLetterMessage(message, details);
        const detail = String(details.deadLetterErrorDescription ?? "authentication or permission refused");
        trip(detail);
        keptOnQueue.add(message);
        // Kept for when the key works, as a wait: no delivery spent.
        await options.keep(message, detail);
      };
      return new Proxy(receiver, {
        get(target, property) {
          if (property === "deadLetterMessage") return deadLetterMessage;
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
    get paused() {
      return paused;
    },
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}
