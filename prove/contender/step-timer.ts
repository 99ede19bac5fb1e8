// Where a contender's wall time goes, step by step (setup, the drain, the fleet's stop, the operator's reconciler,
// the judgement, the cleanup): the run is mostly waits, and a wait is only cut once it is seen. `--verbose` logs it
// per contender, `--json` carries it as `timing`.

/** Milliseconds spent in each step of one contender's run, in the order they ran. */
export type StepTimes = Record<string, number>;

export class StepTimer {
  readonly #times: StepTimes = {};
  #last: number;

  constructor(private readonly now: () => number = Date.now) {
    this.#last = now();
  }

  /** Ends the step running since the last mark (or the start) under this name. */
  mark(step: string): void {
    const now = this.now();
    this.#times[step] = (this.#times[step] ?? 0) + (now - this.#last);
    this.#last = now;
  }

  get times(): StepTimes {
    return { ...this.#times };
  }

  /** "setup 3.1 s, drain 18.6 s, ...": one line for the log. */
  describe(): string {
    return Object.entries(this.#times)
      .map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)} s`)
      .join(", ");
  }
}
