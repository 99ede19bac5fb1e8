// What a contender started, stopped newest first, each stop bounded: one stuck handle is reported and left behind
// instead of hanging the whole run.

/** A stop that takes longer is reported and left behind. */
const cleanupBoundMs = 10_000;

export class BoundedCleanup {
  readonly #stops: [string, () => Promise<void>][] = [];

  /** Registers a stop as soon as its thing is started, so a later failure still stops it. */
  add(label: string, stop: () => Promise<void>): void {
    this.#stops.push([label, stop]);
  }

  /** Runs every stop, newest first; `report` hears of each that failed or outlasted its bound. */
  async run(report: (label: string, outcome: string) => void): Promise<void> {
    for (const [label, stop] of this.#stops.reverse()) {
      const outcome = await within(stop(), cleanupBoundMs).catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
      if (outcome !== "done") report(label, outcome);
    }
  }
}

async function within(work: Promise<void>, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`still running after ${ms} ms`), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work.then(() => "done"), late]);
  } finally {
    clearTimeout(timer);
  }
}
