// Progress over all of a run's contenders, however many run at once: finished ones count 1, running ones their
// share done, reported at every start, finish and step of a running contender.

export interface OverallProgressUpdate {
  /** The contenders running now, comma-separated. */
  contender: string;
  /** Contenders finished. */
  index: number;
  count: number;
  /** The running contenders' shares done, added up. */
  done: number;
}

export class OverallProgress {
  readonly #running = new Map<string, number>();
  #finished = 0;

  constructor(
    readonly count: number,
    readonly onProgress: ((update: OverallProgressUpdate) => void) | undefined,
  ) {}

  /** Runs one contender's work, handing it a callback for its share done (0..1), and counts it finished after. */
  async track<T>(name: string, work: (progress: (done: number) => void) => Promise<T>): Promise<T> {
    this.#running.set(name, 0);
    this.#report();
    try {
      return await work((done) => {
        this.#running.set(name, done);
        this.#report();
      });
    } finally {
      this.#running.delete(name);
      this.#finished++;
      this.#report();
    }
  }

  #report(): void {
    this.onProgress?.({
      contender: [...this.#running.keys()].join(", "),
      index: this.#finished,
      count: this.count,
      done: [...this.#running.values()].reduce((sum, done) => sum + done, 0),
    });
  }
}
