// The one clock that drives Stripe's key window (in the sandbox), leases and the reconciler; tests move it forward.

/** Milliseconds since the epoch. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
