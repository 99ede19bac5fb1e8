import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import { describe, expect, it } from "vitest";
import { attemptOf, chainIdOf, retryMessage, withoutBrokerProperties } from "../../../runtime/handler/retry-chain.js";
import { resubmission, resubmitMessageId } from "../../../runtime/operator/dlq.js";
import { retryMessageId } from "../../../runtime/handler/settlement-policy.js";

const received = (fields: Partial<ServiceBusReceivedMessage>) => ({ body: { a: 1 }, sequenceNumber: 7, ...fields }) as unknown as ServiceBusReceivedMessage;

describe("retry chain bookkeeping", () => {
  it("reads the attempt (1 unless a valid retry number is carried)", () => {
    expect(attemptOf(undefined)).toBe(1);
    expect(attemptOf({ "chargeguard-attempt": 3 })).toBe(3);
    for (const bad of [0, -1, 2.5, "3", null]) expect(attemptOf({ "chargeguard-attempt": bad as number })).toBe(1);
  });

  it("a first delivery's chain is its messageId; a retry carries its chain; a resubmission starts a new one", () => {
    expect(chainIdOf(received({ messageId: "m1" }))).toBe("m1");
    expect(chainIdOf(received({ messageId: "m1:retry:2", applicationProperties: { "chargeguard-chain": "m1" } }))).toBe("m1");
    expect(chainIdOf(received({ messageId: "m1", applicationProperties: { "chargeguard-resubmitted-from": "q/$DeadLetterQueue#9" } }))).toBe(
      "m1@q/$DeadLetterQueue#9",
    );
    expect(chainIdOf(received({}))).toBe("seq-7");
  });

  it("a retry is the same event with the chain's id, attempt and reason, broker properties dropped", () => {
    const original = received({
      messageId: "m1",
      contentType: "application/json",
      correlationId: "c",
      applicationProperties: { tenant: "t", DeadLetterReason: "x" },
    });
    expect(retryMessage(original, { messageId: "m1:retry:2", attempt: 2, chainId: "m1", reason: "timeout" })).toEqual({
      body: { a: 1 },
      messageId: "m1:retry:2",
      contentType: "application/json",
      correlationId: "c",
      subject: undefined,
      applicationProperties: { tenant: "t", "chargeguard-attempt": 2, "chargeguard-chain": "m1", "chargeguard-retry-reason": "timeout" },
    });
    expect(withoutBrokerProperties({ DeadLetterReason: "r", DeadLetterErrorDescription: "d", keep: 1 })).toEqual({ keep: 1 });
  });

  it("a resubmission drops the old chain and the dead-letter fields, and records its DLQ origin", () => {
    const dead = received({
      messageId: "m1:retry:8",
      applicationProperties: { tenant: "t", "chargeguard-attempt": 8, "chargeguard-chain": "m1", "chargeguard-retry-reason": "x", DeadLetterReason: "RetryAttemptsExhausted" },
    });
    expect(resubmission(dead, "billing")).toEqual({
      body: { a: 1 },
      messageId: "m1:retry:8:resubmit:7",
      applicationProperties: { tenant: "t", "chargeguard-resubmitted-from": "billing/$DeadLetterQueue#7" },
    });
  });

  it("a resubmission's id is deterministic per dead-letter entry, never the kept id, and at most 128 characters", () => {
    const long = "x".repeat(120);
    const dead = received({ messageId: long });
    const id = resubmitMessageId({ messageId: long, sequenceNumber: "7" });
    expect(resubmission(dead, "billing").messageId).toBe(id);
    expect(id).toMatch(/^[0-9a-f]{64}:resubmit:7$/);
    expect(resubmitMessageId({ messageId: long, sequenceNumber: "8" })).not.toBe(id);
    expect(resubmitMessageId({ messageId: "m1", sequenceNumber: "7" })).toBe("m1:resubmit:7");
  });

  it("a resubmitted event's retries start a chain of their own, so they never reuse the first life's retry ids", () => {
    const firstLife = chainIdOf(received({ messageId: "m1" }));
    const dead = received({ messageId: "m1:retry:3", applicationProperties: { "chargeguard-chain": "m1", "chargeguard-attempt": 3 } });
    const copy = resubmission(dead, "billing");
    const secondLife = chainIdOf({ messageId: String(copy.messageId), applicationProperties: copy.applicationProperties ?? {}, sequenceNumber: dead.sequenceNumber });
    expect(secondLife).not.toBe(firstLife);
    expect(retryMessageId(secondLife, 2)).not.toBe(retryMessageId(firstLife, 2));
  });
});
