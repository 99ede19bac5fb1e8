import { ServiceBusError } from "@azure/service-bus";
import { describe, expect, it } from "vitest";
import { receiverErrorLog, throttledErrorLog } from "../../../runtime/consumer/servicebus-preflight.js";

describe("throttledErrorLog", () => {
  it("logs a kind at once, folds its repeats into one line per doubling interval, and other kinds apart", () => {
    const lines: string[] = [];
    let now = 0;
    const log = throttledErrorLog((line) => lines.push(line), () => now, 1_000, 4_000);
    // Ten a second for ten seconds, as the SDK's reconnect loop reports a lost entity.
    for (now = 0; now < 10_000; now += 100) log("receive MessagingEntityNotFound", "service bus receive: could not be found");
    log("receive ECONNRESET", "service bus receive: ECONNRESET");
    expect(lines).toEqual([
      "service bus receive: could not be found",
      "service bus receive: could not be found (and 9 more of this kind)",
      "service bus receive: could not be found (and 19 more of this kind)",
      "service bus receive: could not be found (and 39 more of this kind)",
      "service bus receive: ECONNRESET",
    ]);
  });
});

describe("receiverErrorLog", () => {
  // The SDK's messages carry a tracking id, a timestamp and the entity path: no two lines of one outage are equal.
  const notFound = (n: number) =>
    new ServiceBusError(
      `The messaging entity 'sb://ns.servicebus.windows.net/billing' could not be found. TrackingId:${n.toString(16).padStart(8, "0")}-a1b2, TimeStamp:2026-12-02T10:00:${String(n % 60).padStart(2, "0")}`,
      "MessagingEntityNotFound",
    );

  it("throttles on the error's kind, not on its message with the ids inside", () => {
    const lines: string[] = [];
    let now = 0;
    const log = receiverErrorLog((line) => lines.push(line), () => now);
    for (let n = 0; n < 100; n++, now += 100) log(notFound(n), "receive");
    // 10 s of one kind: the first line at once, then one per doubling interval (1 s, 2 s, 4 s) with the count folded.
    expect(lines).toHaveLength(4);
    expect(lines[0]).toContain("service bus receive: The messaging entity");
    expect(lines.at(-1)).toMatch(/\(and \d+ more of this kind\)$/);
  });

  it("keeps kinds apart: another code, another source, a Node socket error", () => {
    const lines: string[] = [];
    const log = receiverErrorLog((line) => lines.push(line), () => 0);
    const reset = Object.assign(new Error("read ECONNRESET 10.0.0.4:5671"), { code: "ECONNRESET" });
    log(notFound(1), "receive");
    log(notFound(2), "renewLock");
    log(new ServiceBusError("The lock supplied is invalid. TrackingId:9", "MessageLockLost"), "renewLock");
    log(reset, "receive");
    log(Object.assign(new Error("read ECONNRESET 10.0.0.5:5671"), { code: "ECONNRESET" }), "receive");
    expect(lines).toEqual([
      expect.stringContaining("service bus receive: The messaging entity"),
      expect.stringContaining("service bus renewLock: The messaging entity"),
      "service bus renewLock: The lock supplied is invalid. TrackingId:9",
      "service bus receive: read ECONNRESET 10.0.0.4:5671",
    ]);
  });
});
