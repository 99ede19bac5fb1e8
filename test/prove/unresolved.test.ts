// The evidence `--verbose` prints for each unresolved event (prove/measure/unresolved.ts): its messages still in the queue
// (retries recognised by their body), its record, its dead letters, and whether it was in flight.
import { describe, expect, it } from "vitest";
import { describeEvidence, describeUnresolved, evidenceLineLimit, inFlightEvents, queuedByEvent, unresolvedEvidence } from "../../prove/measure/unresolved.js";
import type { RecordSummary } from "../../prove/measure/observe.js";
import { generateWorkload, type WorkloadEvent } from "../../prove/workload/workload.js";
import type { MessageSnapshot, QueueSnapshot } from "../../sandbox/index.js";

const workload = generateWorkload({ events: 200, seed: 3 });
const [locked, scheduled, pending, gone] = workload.events.filter((e) => e.kind === "charge") as [WorkloadEvent, WorkloadEvent, WorkloadEvent, WorkloadEvent];

const message = (messageId: string, body: unknown, extra: Partial<MessageSnapshot> = {}): MessageSnapshot => ({
  messageId,
  sequenceNumber: 1,
  body,
  deliveryCount: 1,
  applicationProperties: {},
  enqueuedTime: new Date(0),
  ...extra,
});

const snapshot: QueueSnapshot = {
  queue: "billing",
  receivers: 0,
  active: [message("unrelated", { hello: "world" })],
  locked: [message(locked.messageIds[0]!, locked.body, { deliveryCount: 3, lockedUntil: new Date("2026-12-04T09:00:00Z") })],
  // A retry the consumer scheduled: a new messageId, the event's body.
  scheduled: [message("retry-1", { ...(scheduled.body as object) }, { scheduledEnqueueTime: new Date("2026-12-04T09:00:05Z") })],
  deferred: [],
  deadLettered: [],
};

const rows = new Map<string, RecordSummary>([
  [pending.id, { state: "pending", attempts: 2, steps: ["payment_intent"], lockedUntil: "2026-12-04T09:00:10.000Z" }],
  [gone.id, { state: "done" }],
]);

describe("unresolved events' evidence", () => {
  const queued = queuedByEvent(workload, snapshot, (body) => body);

  it("finds each event's queued messages by messageId or body, and the events in flight (queued or pending)", () => {
    expect([...queued.keys()].sort()).toEqual([locked.id, scheduled.id].sort());
    expect(queued.get(scheduled.id)).toEqual([{ where: "scheduled", messageId: "retry-1", deliveryCount: 1, scheduledFor: "2026-12-04T09:00:05.000Z" }]);
    expect([...inFlightEvents(queued, { rows })].sort()).toEqual([locked.id, scheduled.id, pending.id].sort());
  });

  it("says unsettled for an event in flight in a run given up on, lost otherwise, with its record, queue and dead letters", () => {
    const letters = [{ messageId: "dlq-1", body: gone.body, reason: "" }];
    const evidence = unresolvedEvidence(workload, [locked, pending, gone], { queued, records: { rows }, deadLetters: letters });
    const lines = evidence.map((each) => describeEvidence(each, false));
    expect(lines[0]).toBe(
      `unsettled ${locked.id} (${locked.stripeCustomerId}, ${locked.amountCents} cents): no record; queue: locked ${locked.messageIds[0]} (delivered 3x, locked until 2026-12-04T09:00:00.000Z); no dead letter`,
    );
    expect(lines[1]).toMatch(/^unsettled .*: record pending, 2 attempt\(s\), steps payment_intent, leased until 2026-12-04T09:00:10.000Z; not in the queue; no dead letter$/);
    expect(lines[2]).toMatch(/^lost .*: record done; not in the queue; dead letter: dlq-1 \(no reason\)$/);
    // In a run that settled nothing is in flight: all lost.
    expect(describeEvidence(evidence[0]!, true)).toMatch(/^lost /);
  });

  it("caps the lines per contender and says how many more", () => {
    const many = unresolvedEvidence(workload, workload.events.slice(0, evidenceLineLimit + 7), { queued, records: { rows }, deadLetters: [] });
    const lines = describeUnresolved(many, false);
    expect(lines[0]).toBe(`${evidenceLineLimit + 7} unresolved event(s) (the run did not settle):`);
    expect(lines).toHaveLength(evidenceLineLimit + 2);
    expect(lines.at(-1)).toBe("  ... and 7 more");
    expect(describeUnresolved([], false)).toEqual([]);
  });
});
