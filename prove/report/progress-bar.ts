// Progress on stderr while the proving ground runs (stdout stays clean for the table or --json): a bar in a
// terminal, plain lines elsewhere (CI logs, a pipe), where a bar would print nothing or garbage.
import cliProgress from "cli-progress";

export interface ProgressUpdate {
  /** The contenders running now, comma-separated. */
  contender: string;
  /** Contenders finished. */
  index: number;
  count: number;
  /** The running contenders' shares done, summed (each 0..1). */
  done: number;
}

export interface ProgressBar {
  update(update: ProgressUpdate): void;
  stop(): void;
}

/** Overall share done, 0..1: finished contenders count 1, running ones their share. */
export function overallShare({ index, count, done }: ProgressUpdate): number {
  return count === 0 ? 1 : Math.min(1, Math.max(0, (index + done) / count));
}

/** "2/5 done, running a, b": never past the count, never a position that does not exist. */
export function describeProgress(update: ProgressUpdate): string {
  const finished = Math.min(update.index, update.count);
  return `${finished}/${update.count} done${update.contender ? `, running ${update.contender}` : ""}`;
}

/** A bar when `stream` is a terminal, else progress lines. */
export function progressReporter(stream: NodeJS.WriteStream = process.stderr, now: () => number = Date.now): ProgressBar {
  return stream.isTTY ? progressBar(stream) : progressLines(stream, now);
}

export function progressBar(stream: NodeJS.WriteStream = process.stderr): ProgressBar {
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: "proving ground |{bar}| {percentage}% | {status} | {duration_formatted}",
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(update) {
      const value = Math.round(overallShare(update) * 1000);
      const payload = { status: describeProgress(update) };
      if (!started) {
        bar.start(1000, value, payload);
        started = true;
      } else {
        bar.update(value, payload);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

/** One line when a contender starts or finishes, and otherwise at most one every `everyMs` (a CI log stays short). */
export function progressLines(stream: NodeJS.WritableStream, now: () => number = Date.now, everyMs = 15_000): ProgressBar {
  let last: { index: number; contender: string; at: number } | undefined;
  return {
    update(update) {
      const changed = !last || last.index !== update.index || last.contender !== update.contender;
      if (!changed && now() - (last?.at ?? 0) < everyMs) return;
      last = { index: update.index, contender: update.contender, at: now() };
      stream.write(`proving ground: ${Math.floor(overallShare(update) * 100)}%, ${describeProgress(update)}\n`);
    },
    stop() {},
  };
}
