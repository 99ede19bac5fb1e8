// Intake pauses for several reasons at once (a refused Stripe key, a breaker per dependency) and resumes only when
// none is left: one gate, so one reason clearing never resumes intake while another still holds.

export class IntakePause {
  readonly #reasons = new Set<string>();
  readonly #pause: () => Promise<void>;
  readonly #resume: () => void;
  #pausing: Promise<void> = Promise.resolve();

  constructor(actions: { pause: () => Promise<void>; resume: () => void }) {
    this.#pause = actions.pause;
    this.#resume = actions.resume;
  }

  get paused(): boolean {
    return this.#reasons.size > 0;
  }

  /** Why intake is paused now (a refused Stripe key, a breaker per dependency). */
  get reasons(): string[] {
    return [...this.#reasons];
  }

  /** Adds a reason; the first one stops intake (resolves once the subscription is closed). */
  hold(reason: string): Promise<void> {
    const wasRunning = this.#reasons.size === 0;
    this.#reasons.add(reason);
    if (wasRunning) this.#pausing = this.#pause();
    return this.#pausing;
  }

  /** Removes a reason; the last one resumes intake (after the pause finished closing). */
  release(reason: string): void {
    if (!this.#reasons.delete(reason) || this.#reasons.size > 0) return;
    void this.#pausing.finally(() => {
      if (this.#reasons.size === 0) this.#resume();
    });
  }
}
