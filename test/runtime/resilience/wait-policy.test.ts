// The settlement table's wait: an outcome a dependency caused is rescheduled under the same attempt until the
// event's deadline, never counted toward maxAttempts.
import { describe, expect, it } from "vitest";
import { deadlineOf, waitsOf } from "../../../runtime/handler/event-deadline.js";
import { waitMessageId } from "../../../runtime/resilience/wait-policy.js";
import { retryMessage } from "../../../runtime/handler/retry-chain.js";
import { settle, type BillingOutcome } from "../../../runtime/handler/settlement-policy.js";

const policy = { maxAttempts: 2, baseDelayMs: 5_000, maxDelayMs: 900_000 };
const outage: BillingOutcome = { kind: "unknown", detail: "503", fault: { dependency: "stripe", cause: "outage" } };
const info = { attempt: 2, chainId: "m-1", idempotencyKey: "billing:v1:abc", now: 1_000_000, deadline: 1_000_000 + 3_600_000 };

describe("waits", () => {
  it("at the last attempt a dependency's fault is a wait under the same attempt, not a dead letter", () => {
    const action = settle(outage, { ...info, waits: 0 }, policy);
    expect(action).toMatchObject({ action: "retry-later", attempt: 2, waits: 1, messageId: "m-1:retry:2:wait:1" });
    // The same outcome without a fault is an attempt, and the last one.
    expect(settle({ kind: "unknown", detail: "409" }, info, policy)).toMatchObject({ action: "dead-letter", reason: "RetryAttemptsExhausted" });
  });

  it("short backoff: 1 s doubling, at most 10 s, never past the deadline", () => {
    const delays = [0, 1, 2, 3, 4, 5, 20].map((waits) => (settle(outage, { ...info, waits }, policy) as { delayMs: number }).delayMs);
    expect(delays[0]).toBeGreaterThanOrEqual(500);
    expect(delays[0]).toBeLessThanOrEqual(1_000);
    for (const delay of delays) expect(delay).toBeLessThanOrEqual(10_000);
    expect(delays.at(-1)).toBeGreaterThanOrEqual(5_000);
    const near = settle(outage, { ...info, waits: 6, deadline: info.now + 700 }, policy) as { delayMs: number };
    expect(near.delayMs).toBeLessThanOrEqual(700);
  });

  it("past the deadline: dead-lettered EventDeadlineExceeded with what was down", () => {
    const action = settle({ kind: "unknown", detail: "refused", fault: { dependency: "database", cause: "outage" } }, { ...info, waits: 40, deadline: info.now }, policy);
    expect(action).toMatchObject({ action: "dead-letter", reason: "EventDeadlineExceeded" });
    expect((action as { description: string }).description).toMatch(/^database unavailable past the event's deadline .* \(after 40 waits\): refused$/);
  });

  it("the deadline: carried, else the message's expiry, else 14 days from enqueue; a retry carries it and expires after it", () => {
    const enqueuedTimeUtc = new Date(0);
    expect(deadlineOf({ applicationProperties: {}, enqueuedTimeUtc, expiresAtUtc: new Date(60_000) })).toBe(60_000);
    expect(deadlineOf({ applicationProperties: {}, enqueuedTimeUtc, expiresAtUtc: new Date("9999-12-31T23:59:59Z") })).toBe(14 * 86_400_000);
    expect(deadlineOf({ applicationProperties: { "chargeguard-deadline": 5 }, enqueuedTimeUtc, expiresAtUtc: new Date(60_000) })).toBe(5);
    const retry = retryMessage({ body: {}, applicationProperties: {} } as never, { messageId: "x", attempt: 1, chainId: "c", reason: "r", waits: 3, deadline: 100_000, now: 40_000 });
    expect(retry.applicationProperties).toMatchObject({ "chargeguard-waits": 3, "chargeguard-deadline": 100_000 });
    expect(retry.timeToLive).toBe(60_000 + 60_000);
    expect(waitsOf(retry.applicationProperties)).toBe(3);
    expect(waitMessageId("c".repeat(130), 1, 2)).toMatch(/^[0-9a-f]{64}:retry:1:wait:2$/);
  });
});
