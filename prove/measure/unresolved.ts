// The events a run left without an end (neither charged, declined nor dead-lettered), and what the run left of each:
// its messages still in the queue, its record, its dead letters. When a run was given up on before it settled, an
// event with a message still queued or a record still pending was in flight (unsettled: waiting longer might have
// resolved it); one with neither was lost. `--verbose` prints the evidence, one event a line.
import type { MessageSnapshot, QueueSnapshot } from "../../sandbox/index.js";
import { eventOfMessage, type DeadLetter } from "./metrics.js";
import type { RecordedEvents, RecordSummary } from "./observe.js";
import type { Workload, WorkloadEvent } from "../workload/workload.js";

/** Where a message waits in the queue, and what the broker says of it. */
export interface QueuedMessage {
  where: "active" | "locked" | "scheduled" | "deferred";
  messageId: string;
  deliveryCount: number;
  lockedUntil?: string;
  scheduledFor?: string;
}

export interface UnresolvedEvidence {
  event: WorkloadEvent;
  /** In flight: a message still queued or a record still pending. */
  inFlight: boolean;
  queued: QueuedMessage[];
  record?: RecordSummary;
  deadLetters: { messageId: string; reason: string }[];
}

/** The queue's messages by the workload event they carry (retries and re-sent copies recognised by their body). */
export function queuedByEvent(workload: Workload, snapshot: QueueSnapshot, bodyOf: (body: unknown) => unknown): Map<string, QueuedMessage[]> {
  const found = new Map<string, QueuedMessage[]>();
  const places = [
    ["active", snapshot.active],
    ["locked", snapshot.locked],
    ["scheduled", snapshot.scheduled],
    ["deferred", snapshot.deferred],
  ] as const;
  for (const [where, messages] of places) {
    for (const message of messages) {
      const event = eventOfMessage(workload, { messageId: message.messageId, body: bodyOf(message.body) });
      if (event) found.set(event.id, [...(found.get(event.id) ?? []), queuedMessage(where, message)]);
    }
  }
  return found;
}

function queuedMessage(where: QueuedMessage["where"], message: MessageSnapshot): QueuedMessage {
  return {
    where,
    messageId: message.messageId,
    deliveryCount: message.deliveryCount,
    ...(message.lockedUntil ? { lockedUntil: message.lockedUntil.toISOString() } : {}),
    ...(message.scheduledEnqueueTime ? { scheduledFor: message.scheduledEnqueueTime.toISOString() } : {}),
  };
}

/** Events still in flight: a message of theirs queued, or their record pending. */
export function inFlightEvents(queued: ReadonlyMap<string, QueuedMessage[]>, records: Pick<RecordedEvents, "rows">): Set<string> {
  const found = new Set(queued.keys());
  for (const [id, record] of records.rows) if (record.state === "pending") found.add(id);
  return found;
}

export interface EvidenceSources {
  queued: ReadonlyMap<string, QueuedMessage[]>;
  records: Pick<RecordedEvents, "rows">;
  deadLetters: readonly DeadLetter[];
}

/** The evidence for each unresolved event. */
export function unresolvedEvidence(workload: Workload, unresolved: readonly WorkloadEvent[], sources: EvidenceSources): UnresolvedEvidence[] {
  const inFlight = inFlightEvents(sources.queued, sources.records);
  const lettersByEvent = new Map<string, { messageId: string; reason: string }[]>();
  for (const letter of sources.deadLetters) {
    const event = eventOfMessage(workload, letter);
    if (event) lettersByEvent.set(event.id, [...(lettersByEvent.get(event.id) ?? []), { messageId: letter.messageId, reason: letter.reason }]);
  }
  return unresolved.map((event) => {
    const record = sources.records.rows.get(event.id);
    return {
      event,
      inFlight: inFlight.has(event.id),
      queued: sources.queued.get(event.id) ?? [],
      ...(record ? { record } : {}),
      deadLetters: lettersByEvent.get(event.id) ?? [],
    };
  });
}

/** One line per event: the classification (given whether the run settled), then the record, the queue, the dead letters. */
export function describeEvidence(evidence: UnresolvedEvidence, settled: boolean): string {
  const { event, record, queued, deadLetters } = evidence;
  const kind = !settled && evidence.inFlight ? "unsettled" : "lost";
  const recordText = record
    ? `record ${record.state}${record.attempts === undefined ? "" : `, ${record.attempts} attempt(s)`}${record.steps?.length ? `, steps ${record.steps.join("+")}` : ""}${record.lockedUntil ? `, leased until ${record.lockedUntil}` : ""}`
    : "no record";
  const queueText =
    queued.length === 0
      ? "not in the queue"
      : `queue: ${queued
          .map((m) => `${m.where} ${m.messageId} (delivered ${m.deliveryCount}x${m.lockedUntil ? `, locked until ${m.lockedUntil}` : ""}${m.scheduledFor ? `, due ${m.scheduledFor}` : ""})`)
          .join("; ")}`;
  const letterText = deadLetters.length === 0 ? "no dead letter" : `dead letter: ${deadLetters.map((letter) => `${letter.messageId} ${letter.reason || "(no reason)"}`).join("; ")}`;
  return `${kind} ${event.id} (${event.stripeCustomerId}, ${event.amountCents} cents): ${recordText}; ${queueText}; ${letterText}`;
}

/** At most this many lines per contender: the count says the rest. */
export const evidenceLineLimit = 50;

export function describeUnresolved(evidence: readonly UnresolvedEvidence[], settled: boolean): string[] {
  if (evidence.length === 0) return [];
  const lines = evidence.slice(0, evidenceLineLimit).map((each) => `  ${describeEvidence(each, settled)}`);
  const rest = evidence.length - evidenceLineLimit;
  return [`${evidence.length} unresolved event(s)${settled ? "" : " (the run did not settle)"}:`, ...lines, ...(rest > 0 ? [`  ... and ${rest} more`] : [])];
}
