// What left the process under a guard record's key, counted from the Stripe client's own events, so the guard can
// tell "nothing reached Stripe" from "a try may have". A call's final error says nothing about the tries before it:
// stripe-node retries a timed-out request (maxNetworkRetries), a 5xx and a 409, and a closed connection once even
// with retries off; a try Stripe committed may end in a timeout, then its retry meets a 429 or the vault's cap. The
// client emits `request` just before each try goes out (retries included) and `response` for the answer it keeps
// (a try it retries emits none). A try is proven not executed only by an answer that comes before execution: 429
// (Stripe's rate limit, or the vault's cap, which forwards nothing), 401 and 403 (a refused key or endpoint). Every
// other try (answered otherwise, timed out, connection lost, or retried by the SDK) may have reached Stripe.
import type Stripe from "stripe";

/** Answers that prove the try was refused before anything executed. */
const refusedBeforeExecution = new Set([401, 403, 429]);
/** A try with no answer is forgotten from the matching table after this (the SDK's timeout is far shorter). */
const unansweredForgetMs = 15 * 60_000;

/** One guarded run's view of the tries under its key (the record's key or one of its step keys, `<key>:<step>`). */
export interface SentRequests {
  /** True when some try under the key may have reached Stripe (not refused before execution). */
  maybeSent(): boolean;
  /** Stops counting (the run ended). */
  stop(): void;
}

interface Watch {
  key: string;
  tries: number;
  refused: number;
}

const watches = new Set<Watch>();

/** Counts the tries under `idempotencyKey` sent by every watched client (`watchStripeRequests`) until stopped. */
export function watchSentRequests(idempotencyKey: string): SentRequests {
  const watch: Watch = { key: idempotencyKey, tries: 0, refused: 0 };
  watches.add(watch);
  return {
    maybeSent: () => watch.tries > watch.refused,
    stop: () => void watches.delete(watch),
  };
}

function watchesOf(idempotencyKey: string): Watch[] {
  const found: Watch[] = [];
  for (const watch of watches) {
    if (idempotencyKey === watch.key || idempotencyKey.startsWith(`${watch.key}:`)) found.push(watch);
  }
  return found;
}

interface RequestEventShape {
  idempotency_key?: string;
  method: string;
  path: string;
  request_start_time: number;
}

interface ResponseEventShape extends RequestEventShape {
  status?: number;
}

const instrumented = new WeakSet<object>();

/**
 * Feeds a client's tries to the guard's watches (createStripeClient does it for every client the kit makes; a client
 * of your own that runs guarded work needs it too). Idempotent per client.
 */
export function watchStripeRequests(client: Stripe): Stripe {
  if (instrumented.has(client)) return client;
  instrumented.add(client);
  // A response names its try by method, path and start time; a vault's refusal carries no Idempotency-Key header,
  // so the key comes from the try it answers. A signature two keys share is ambiguous: its refusal proves nothing.
  const unanswered = new Map<string, { keys: string[]; at: number }>();
  client.on("request", (event: RequestEventShape) => {
    const key = event.idempotency_key;
    if (key === undefined) return;
    for (const watch of watchesOf(key)) watch.tries += 1;
    const signature = `${event.method} ${event.path} ${event.request_start_time}`;
    const entry = unanswered.get(signature);
    if (entry) entry.keys.push(key);
    else unanswered.set(signature, { keys: [key], at: event.request_start_time });
    for (const [stale, { at }] of unanswered) {
      if (at > event.request_start_time - unansweredForgetMs) break;
      unanswered.delete(stale);
    }
  });
  client.on("response", (event: ResponseEventShape) => {
    const signature = `${event.method} ${event.path} ${event.request_start_time}`;
    const entry = unanswered.get(signature);
    if (!entry) return;
    unanswered.delete(signature);
    const key = event.idempotency_key ?? (new Set(entry.keys).size === 1 ? entry.keys[0] : undefined);
    if (key === undefined || event.status === undefined || !refusedBeforeExecution.has(event.status)) return;
    for (const watch of watchesOf(key)) watch.refused += 1;
  });
  return client;
}
