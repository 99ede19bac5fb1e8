/**
 * Milliseconds since the epoch. The sandbox's own, not imported: it stands for Azure and Stripe, which know nothing
 * of chargeguard. Any object with `now()` fits (chargeguard/runtime's `Clock` has the same shape).
 */
export interface SandboxClock {
  now(): number;
}

export const systemClock: SandboxClock = { now: () => Date.now() };

/**
 * Real time plus an offset that tests move forward: "24 hours later" takes no real time, while timers that
 * must really fire (lock expiry) still run. One instance drives Stripe's key window, leases and the reconciler.
 */
export class AdjustableClock implements SandboxClock {
  #offsetMs = 0;

  now(): number {
    return Date.now() + this.#offsetMs;
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`advance(ms) takes a finite, non-negative number, got ${ms}`);
    this.#offsetMs += ms;
  }
}
