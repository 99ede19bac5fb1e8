import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { describeProgress, overallShare, progressLines, progressReporter } from "../../prove/report/progress-bar.js";

describe("proving-ground progress", () => {
  it("never shows a contender past the count, and ends at 100%", () => {
    // Three contenders, two lanes: the sequence runProvingGround reports.
    expect(describeProgress({ contender: "a, b", index: 0, count: 3, done: 0.5 })).toBe("0/3 done, running a, b");
    expect(describeProgress({ contender: "", index: 3, count: 3, done: 0 })).toBe("3/3 done");
    expect(overallShare({ contender: "", index: 3, count: 3, done: 0 })).toBe(1);
    expect(overallShare({ contender: "c", index: 2, count: 3, done: 0.5 })).toBeCloseTo(2.5 / 3);
    // A late progress report from a finished contender cannot push the share past 1.
    expect(overallShare({ contender: "c", index: 3, count: 3, done: 0.9 })).toBe(1);
  });

  it("prints lines off a terminal: on each start or finish, otherwise at most one per interval", () => {
    const out = new PassThrough();
    let now = 0;
    const lines = progressLines(out, () => now, 15_000);
    lines.update({ contender: "a", index: 0, count: 2, done: 0 });
    now = 1_000;
    lines.update({ contender: "a", index: 0, count: 2, done: 0.2 }); // same state, too soon: quiet
    now = 16_500;
    lines.update({ contender: "a", index: 0, count: 2, done: 0.6 });
    lines.update({ contender: "b", index: 1, count: 2, done: 0 });
    lines.update({ contender: "", index: 2, count: 2, done: 0 });
    expect(String(out.read()).trim().split("\n")).toEqual([
      "proving ground: 0%, 0/2 done, running a",
      "proving ground: 30%, 0/2 done, running a",
      "proving ground: 50%, 1/2 done, running b",
      "proving ground: 100%, 2/2 done",
    ]);
  });

  it("chooses lines for a stream that is not a terminal", () => {
    const out = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    progressReporter(out).update({ contender: "a", index: 0, count: 1, done: 0 });
    expect(String((out as unknown as PassThrough).read())).toBe("proving ground: 0%, 0/1 done, running a\n");
  });
});
