import { describe, expect, it } from "vitest";
import { measure, unresolvedEvents, verdict, verdictOutcome, type RunObservations, type StripeAttempt } from "../../prove/measure/metrics.js";
import { generateWorkload, type WorkloadEvent } from "../../prove/workload/workload.js";

const workload = generateWorkload({ events: 400, seed: 21 });
const charges = workload.events.filter((e) => e.kind === "charge");
const declines = workload.events.filter((e) => e.kind === "decline");
const malformed = workload.events.filter((e) => e.kind === "malformed");

let nextIntent = 0;
const attempt = (event: WorkloadEvent, outcome: StripeAttempt["outcome"]): StripeAttempt => ({
  paymentIntentId: `pi_${nextIntent++}`,
  customer: event.stripeCustomerId,
  amountCents: event.amountCents,
  outcome,
});

/** What a correct consumer leaves behind: one charge per charge event, one decline per decline, malformed in the DLQ. */
function perfectRun(): RunObservations {
  const attempts = [...charges.map((e) => attempt(e, "succeeded")), ...declines.map((e) => attempt(e, "declined"))];
  return {
    attempts,
    paymentIntents: attempts.length,
    deadLetters: malformed.map((e) => ({ messageId: e.messageIds[0] as string, body: e.body, reason: "InvalidEvent" })),
    deliveries: workload.messages.length,
    wallMs: 1234,
  };
}

describe("metrics", () => {
  it("finds nothing wrong with a correct run", () => {
    const metrics = measure(workload, perfectRun());
    expect(metrics).toMatchObject({
      events: 400,
      charges: charges.length,
      duplicateCharges: 0,
      lostBillings: 0,
      overCapCents: 0,
      repeatedDeclines: 0,
      malformedDeadLettered: malformed.length,
      malformedCharged: 0,
      deadLettered: { InvalidEvent: malformed.length },
      wallMs: 1234,
    });
    expect(verdict(metrics)).toMatch(/^PASS/);
  });

  it("counts duplicate charges, lost billings and repeated declines per event", () => {
    const run = perfectRun();
    const [first, second, third] = charges as [WorkloadEvent, WorkloadEvent, WorkloadEvent];
    run.attempts.push(attempt(first, "succeeded"), attempt(first, "succeeded"), attempt(second, "succeeded"));
    run.attempts = run.attempts.filter((a) => !(a.customer === third.stripeCustomerId && a.amountCents === third.amountCents));
    const declined = declines[0] as WorkloadEvent;
    run.attempts.push(attempt(declined, "declined"), attempt(declined, "declined"));
    const metrics = measure(workload, run);
    expect(metrics.duplicateCharges).toBe(3);
    expect(metrics.lostBillings).toBe(1);
    expect(metrics.repeatedDeclines).toBe(2);
    expect(verdict(metrics)).toBe("FAIL: 3 duplicate charge(s), 1 lost billing(s), 2 repeated decline(s)");
  });

  it("does not count a dead-lettered or a recorded-declined event as lost", () => {
    const run = perfectRun();
    const [charged, declined] = [charges[0] as WorkloadEvent, declines[0] as WorkloadEvent];
    run.attempts = run.attempts.filter((a) => a.customer !== charged.stripeCustomerId && a.customer !== declined.stripeCustomerId);
    // A retry the consumer re-enqueued carries a new messageId: the body identifies the event.
    run.deadLetters.push({ messageId: "retry-of-something", body: { ...(charged.body as object) }, reason: "MaxAttemptsExceeded" });
    run.recordedDeclines = new Set([declined.id]);
    const metrics = measure(workload, run);
    expect(metrics.lostBillings).toBe(
      // other events of the same two customers lost their attempts too
      workload.events.filter((e) => e.usage && (e.stripeCustomerId === charged.stripeCustomerId || e.stripeCustomerId === declined.stripeCustomerId)).length - 2,
    );
    expect(metrics.deadLettered).toEqual({ InvalidEvent: malformed.length, MaxAttemptsExceeded: 1 });
  });

  it("measures spend above the period cap and malformed events that were charged or left without a reason", () => {
    const run = perfectRun();
    const period = (charges[0] as WorkloadEvent).billingPeriod;
    const spent = charges.filter((e) => e.billingPeriod === period).reduce((sum, e) => sum + e.amountCents, 0);
    run.periodCapCents = spent - 500;
    const oversized = malformed.find((e) => e.malformation === "oversized-body") ?? (malformed[0] as WorkloadEvent);
    run.attempts.push(attempt(oversized, "succeeded"));
    const blank = malformed.find((e) => e !== oversized) as WorkloadEvent;
    run.deadLetters = run.deadLetters.map((letter) => (letter.messageId === blank.messageIds[0] ? { ...letter, reason: " " } : letter));
    const metrics = measure(workload, { ...run });
    expect(metrics.overCapCents).toBeGreaterThanOrEqual(500);
    expect(metrics.malformedCharged).toBe(1);
    // the charged one counts as charged, not as dead-lettered; the one without a reason as neither
    expect(metrics.malformedDeadLettered).toBe(malformed.length - 2);
    expect(metrics.deadLettered["(no reason)"]).toBe(1);
    expect(verdict(metrics)).toMatch(/over the spend cap.*1 malformed event\(s\) charged, 1 malformed event\(s\) not dead-lettered with a reason/);
  });

  it("keeps charges that match no event apart", () => {
    const run = perfectRun();
    run.attempts.push({ paymentIntentId: "pi_x", customer: "cus_nobody", amountCents: 100, outcome: "succeeded" });
    const metrics = measure(workload, run);
    expect(metrics.unattributedCharges).toBe(1);
    expect(metrics.charges).toBe(charges.length + 1);
    expect(verdict(metrics)).toMatch(/1 charge\(s\) matching no event/);
  });
});

describe("verdict classification: lost, unsettled, failed", () => {
  /** A run missing the charges of `count` charge events. */
  function missing(count: number): { run: RunObservations; gone: WorkloadEvent[] } {
    const run = perfectRun();
    const gone = charges.slice(0, count);
    const keys = new Set(gone.map((e) => `${e.stripeCustomerId}|${e.amountCents}`));
    run.attempts = run.attempts.filter((a) => !keys.has(`${a.customer}|${a.amountCents}`));
    return { run, gone };
  }

  it("a run that settled: every unresolved event is lost (FAIL), as before", () => {
    const { run, gone } = missing(3);
    const metrics = measure(workload, run);
    expect(metrics).toMatchObject({ lostBillings: 3, unsettledBillings: 0 });
    expect(unresolvedEvents(workload, run).map((e) => e.id)).toEqual(gone.map((e) => e.id));
    expect(verdict(metrics)).toBe("FAIL: 3 lost billing(s)");
    expect(verdictOutcome(verdict(metrics))).toBe("fail");
  });

  it("a run given up on: unresolved events still in flight are unsettled (inconclusive), the others lost", () => {
    const { run, gone } = missing(3);
    run.inFlight = new Set([gone[0]!.id, gone[1]!.id, charges[10]!.id]);
    const metrics = measure(workload, run);
    // charges[10] was billed: in flight or not, it is resolved and counts nowhere.
    expect(metrics).toMatchObject({ lostBillings: 1, unsettledBillings: 2 });
    expect(verdict(metrics)).toBe("FAIL: 1 lost billing(s), 2 billing(s) still in flight, neither billed, refused nor dead-lettered");

    run.inFlight = new Set(gone.map((e) => e.id));
    const unsettled = measure(workload, run);
    expect(unsettled).toMatchObject({ lostBillings: 0, unsettledBillings: 3 });
    expect(verdict(unsettled)).toBe("DID NOT SETTLE: 3 billing(s) still in flight, neither billed, refused nor dead-lettered when the wait ended (inconclusive)");
    expect(verdictOutcome(verdict(unsettled))).toBe("did-not-settle");
  });

  it("money charged twice stays a FAIL however much is unsettled", () => {
    const { run, gone } = missing(2);
    run.inFlight = new Set(gone.map((e) => e.id));
    run.attempts.push(attempt(charges[5]!, "succeeded"));
    const metrics = measure(workload, run);
    expect(metrics).toMatchObject({ duplicateCharges: 1, unsettledBillings: 2, lostBillings: 0 });
    expect(verdict(metrics)).toMatch(/^FAIL: 1 duplicate charge\(s\), 2 billing\(s\) still in flight/);
    expect(verdictOutcome(verdict(metrics))).toBe("fail");
  });

  it("a dead-lettered, declined or billed event is never unsettled", () => {
    const run = perfectRun();
    run.inFlight = new Set(workload.events.map((e) => e.id));
    expect(measure(workload, run)).toMatchObject({ lostBillings: 0, unsettledBillings: 0 });
    expect(verdictOutcome(verdict(measure(workload, run)))).toBe("pass");
    expect(verdictOutcome("NOT RUN: no database")).toBe("fail");
  });
});
