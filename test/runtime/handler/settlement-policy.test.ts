import { describe, expect, it } from "vitest";
import {
  backoffDelayMs,
  defaultRetryPolicy,
  onSettleFailure,
  outcomeLabel,
  retryMessageId,
  settle,
  type BillingOutcome,
  type RetryPolicy,
} from "../../../runtime/handler/settlement-policy.js";

const info = { attempt: 1, chainId: "msg-1", idempotencyKey: "billing:v1:abc" };
const policy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 1_000, maxDelayMs: 10_000 };

describe("settle: outcome -> action", () => {
  const table: [BillingOutcome, ReturnType<typeof settle>][] = [
    [{ kind: "charged" }, { action: "complete" }],
    [{ kind: "already-billed" }, { action: "complete" }],
    [{ kind: "declined" }, { action: "complete" }],
    [
      { kind: "invalid", reason: "InvalidEvent", detail: "amountCents: must be greater than zero" },
      { action: "dead-letter", reason: "InvalidEvent", description: "amountCents: must be greater than zero" },
    ],
    [
      { kind: "spend-cap", detail: "period 2026-10 cap 1000" },
      { action: "dead-letter", reason: "SpendCapExceeded", description: "period 2026-10 cap 1000" },
    ],
    [
      { kind: "configuration", detail: "StripePermissionError 403" },
      { action: "dead-letter", reason: "StripeConfigurationError", description: "StripePermissionError 403" },
    ],
  ];
  it.each(table)("%j -> %j", (outcome, action) => {
    expect(settle(outcome, info, policy)).toEqual(action);
  });

  it("never abandons: every outcome maps to complete, dead-letter or a scheduled retry", () => {
    const kinds: BillingOutcome[] = [...table.map(([o]) => o), { kind: "unknown", detail: "timeout" }];
    for (const outcome of kinds) {
      for (let attempt = 1; attempt <= policy.maxAttempts + 1; attempt++) {
        expect(["complete", "dead-letter", "retry-later"]).toContain(settle(outcome, { ...info, attempt }, policy).action);
      }
    }
  });

  it("retries an unknown outcome later with the next attempt's deterministic id", () => {
    const action = settle({ kind: "unknown", detail: "StripeConnectionError: timeout" }, info, policy);
    expect(action).toMatchObject({ action: "retry-later", attempt: 2, messageId: "msg-1:retry:2", description: "StripeConnectionError: timeout" });
    expect(settle({ kind: "unknown", detail: "x" }, info, policy)).toEqual(settle({ kind: "unknown", detail: "x" }, info, policy));
  });

  it("a twin's lease (busy) is a wait, not an attempt: asked again within a second, never past the lease's end", () => {
    const now = Date.now();
    const busy = (leaseHeldMs: number, waits: number) =>
      settle({ kind: "unknown", detail: "another consumer holds the billing lease", leaseHeldMs }, { ...info, attempt: policy.maxAttempts, waits, deadline: now + 3_600_000, now }, policy);
    // At the last attempt a busy twin still does not dead-letter: contention says nothing about the event.
    const first = busy(60_000, 0);
    expect(first).toMatchObject({ action: "retry-later", attempt: policy.maxAttempts, waits: 1 });
    expect((first as { delayMs: number }).delayMs).toBeLessThanOrEqual(1_000);
    // The backoff grows, but not past the lease: the billing is free to take over then.
    expect((busy(60_000, 6) as { delayMs: number }).delayMs).toBeGreaterThan(1_000);
    expect((busy(1_500, 6) as { delayMs: number }).delayMs).toBe(1_500);
    expect((busy(0, 6) as { delayMs: number }).delayMs).toBe(100);
    // Past the event's deadline it gives up like any wait.
    expect(settle({ kind: "unknown", detail: "busy", leaseHeldMs: 5_000 }, { ...info, waits: 3, deadline: now - 1, now }, policy)).toMatchObject({
      action: "dead-letter",
      reason: "EventDeadlineExceeded",
    });
  });

  it("dead-letters past the attempt limit with a reason", () => {
    expect(settle({ kind: "unknown", detail: "Stripe 503" }, { ...info, attempt: 3 }, policy)).toMatchObject({ action: "retry-later", attempt: 4 });
    expect(settle({ kind: "unknown", detail: "Stripe 503" }, { ...info, attempt: 4 }, policy)).toEqual({
      action: "dead-letter",
      reason: "RetryAttemptsExhausted",
      description: "outcome still unknown after 4 attempts (limit 4): Stripe 503",
    });
  });
});

describe("backoffDelayMs", () => {
  it("grows exponentially within [step/2, step], capped, and is deterministic", () => {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      const delay = backoffDelayMs(attempt, "billing:v1:abc", policy);
      expect(delay).toBeGreaterThanOrEqual(step / 2);
      expect(delay).toBeLessThanOrEqual(step);
      expect(backoffDelayMs(attempt, "billing:v1:abc", policy)).toBe(delay);
    }
  });

  it("spreads different events apart (jitter from the key)", () => {
    const delays = new Set(Array.from({ length: 20 }, (_, i) => backoffDelayMs(3, `billing:v1:${i}`, defaultRetryPolicy)));
    expect(delays.size).toBeGreaterThan(15);
  });
});

describe("retryMessageId", () => {
  it("is readable when short, hashed to <= 128 characters when long, and distinct per attempt", () => {
    expect(retryMessageId("abc", 3)).toBe("abc:retry:3");
    const long = retryMessageId("x".repeat(200), 2);
    expect(long.length).toBeLessThanOrEqual(128);
    expect(long).toMatch(/^[0-9a-f]{64}:retry:2$/);
    expect(retryMessageId("x".repeat(200), 3)).not.toBe(long);
  });
});

describe("onSettleFailure", () => {
  it("only logs, for a lost lock and for anything else", () => {
    expect(onSettleFailure("MessageLockLost")).toMatchObject({ action: "log", note: expect.stringMatching(/guard/) });
    expect(onSettleFailure("ServiceTimeout")).toMatchObject({ action: "log" });
    expect(onSettleFailure(undefined)).toMatchObject({ action: "log" });
  });
});

describe("outcomeLabel: what the consumer's log line names", () => {
  it("names the Stripe object of a charge and of an earlier one, and only the kind otherwise", () => {
    expect(outcomeLabel({ kind: "charged", objectId: "pi_3Q" })).toBe("charged pi_3Q");
    expect(outcomeLabel({ kind: "already-billed", objectId: "in_1A" })).toBe("already-billed in_1A");
    expect(outcomeLabel({ kind: "already-billed" })).toBe("already-billed");
    expect(outcomeLabel({ kind: "declined" })).toBe("declined");
  });
});
