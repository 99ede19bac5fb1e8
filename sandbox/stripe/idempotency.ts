import type { SandboxClock } from "../clock.js";

/** Stripe prunes keys once they are at least 24 hours old; after that the same key is a new request. */
export const idempotencyWindowMs = 24 * 60 * 60 * 1000;

export interface SavedResponse {
  status: number;
  body: string;
  requestId: string;
}

interface KeyEntry {
  /** Method, path and canonical parameters of the first request. */
  fingerprint: string;
  startedAt: number;
  /** Absent while the first request is still executing. */
  response?: SavedResponse;
}

export type KeyClaim =
  | { kind: "claimed" }
  | { kind: "executing" }
  | { kind: "mismatch"; firstFingerprint: string }
  | { kind: "replay"; response: SavedResponse };

/**
 * Stripe's idempotency layer: the first request for a key claims it as it starts executing; later requests
 * with the same key get the saved response (same parameters), a 400 (other parameters) or a 409 (still running).
 */
export class IdempotencyKeys {
  // Insertion order is claim order, so expired keys are pruned from the front in amortised O(1).
  readonly #entries = new Map<string, KeyEntry>();

  constructor(
    private readonly clock: SandboxClock,
    private readonly windowMs = idempotencyWindowMs,
  ) {}

  claim(key: string, fingerprint: string): KeyClaim {
    const now = this.clock.now();
    this.#prune(now);
    const entry = this.#entries.get(key);
    if (entry && now - entry.startedAt < this.windowMs) {
      if (!entry.response) return { kind: "executing" };
      if (entry.fingerprint !== fingerprint) return { kind: "mismatch", firstFingerprint: entry.fingerprint };
      return { kind: "replay", response: entry.response };
    }
    this.#entries.delete(key);
    this.#entries.set(key, { fingerprint, startedAt: now });
    return { kind: "claimed" };
  }

  save(key: string, response: SavedResponse): void {
    const entry = this.#entries.get(key);
    if (entry) entry.response = response;
  }

  /** The request failed validation before the endpoint ran: Stripe saves nothing, the key is free again. */
  release(key: string): void {
    this.#entries.delete(key);
  }

  #prune(now: number): void {
    for (const [key, entry] of this.#entries) {
      if (now - entry.startedAt < this.windowMs || !entry.response) return;
      this.#entries.delete(key);
    }
  }
}
