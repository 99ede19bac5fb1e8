import { describe, expect, it } from "vitest";
import { throttledErrorLog } from "../../runtime/servicebus-preflight.js";

describe("throttledErrorLog", () => {
  it("logs an error at once, folds repeats into one line per doubling interval, and other errors apart", () => {
    const lines: string[] = [];
    let now = 0;
    const log = throttledErrorLog((line) => lines.push(line), () => now, 1_000, 4_000);
    // Ten a second for ten seconds, as the SDK's reconnect loop reports a lost entity.
    for (now = 0; now < 10_000; now += 100) log("service bus receive: could not be found");
    log("service bus receive: ECONNRESET");
    expect(lines).toEqual([
      "service bus receive: could not be found",
      "service bus receive: could not be found (and 9 more like it)",
      "service bus receive: could not be found (and 19 more like it)",
      "service bus receive: could not be found (and 39 more like it)",
      "service bus receive: ECONNRESET",
    ]);
  });
});
