// The progress bar on stderr while the proving ground runs (stdout stays clean for the table or --json).
import cliProgress from "cli-progress";

export interface ProgressBar {
  update(update: { contender: string; index: number; count: number; done: number }): void;
  stop(): void;
}

export function progressBar(stream: NodeJS.WriteStream = process.stderr): ProgressBar {
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: "proving ground |{bar}| {percentage}% | contender {position}/{count} {contender} | {duration_formatted}",
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update({ contender, index, count, done }) {
      const value = Math.round(((index + done) / count) * 1000);
      const payload = { contender, position: index + 1, count };
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
