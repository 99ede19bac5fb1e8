import rhea, { type Message } from "rhea";
import type { AccessRight } from "./authorization.js";
import type { Entity } from "./entity.js";
import type { FaultBook, FaultVerdict, SettleOperation } from "./faults.js";
import { MessageNotFoundError, type EmulatedQueue, type Settlement } from "./queue.js";
import { headerDeliveryCount } from "./message-record.js";
import { snapshotOf } from "./snapshot.js";
import { deadLetterNotAllowed } from "./transfer-answers.js";
import { decodeMessage, encodeForDelivery, recordState, toLockToken, toSequenceNumber, uuidBytes } from "./wire.js";

/** A $management answer; `statusCode` travels camelCase, as the SDK reads it. */
export interface ManagementReply {
  statusCode: number;
  statusDescription: string;
  errorCondition?: string;
  body?: unknown;
}

const ok = (body?: unknown): ManagementReply => ({ statusCode: 200, statusDescription: "OK", body });
const lockLost = (): ManagementReply => ({
  statusCode: 410,
  statusDescription: "The lock supplied is invalid. Either the lock expired, or the message has already been removed.",
  errorCondition: "com.microsoft:message-lock-lost",
});
const notAllowed = (): ManagementReply => ({
  statusCode: 400,
  statusDescription: deadLetterNotAllowed.description,
  errorCondition: deadLetterNotAllowed.condition,
});
export const serverBusyReply = (): ManagementReply => ({
  statusCode: 503,
  statusDescription: "The server is busy. Please retry the operation later (injected fault).",
  errorCondition: "com.microsoft:server-busy",
});

/** How a management request resolves: now, later (delay fault), or never (never fault). */
export type ManagementOutcome =
  | { kind: "reply"; reply: ManagementReply }
  | { kind: "later"; delayMs: number; run: () => ManagementReply }
  | { kind: "never" };

const dispositions: Record<string, { operation: SettleOperation; settlement: (body: RequestBody) => Settlement }> = {
  completed: { operation: "complete", settlement: () => ({ kind: "complete" }) },
  abandoned: { operation: "abandon", settlement: (body) => ({ kind: "abandon", properties: modified(body) }) },
  defered: { operation: "defer", settlement: (body) => ({ kind: "defer", properties: modified(body) }) },
  suspended: {
    operation: "deadLetter",
    settlement: (body) => ({
      kind: "deadLetter",
      reason: optionalText(body["deadletter-reason"]),
      description: optionalText(body["deadletter-description"]),
      properties: modified(body),
    }),
  },
};

type RequestBody = Record<string, unknown>;

/** Reading and settling need Listen; scheduling (a send) and cancelling need Send; anything else Manage. */
const operationRights: Record<string, AccessRight> = {
  "com.microsoft:peek-message": "Listen",
  "com.microsoft:renew-lock": "Listen",
  "com.microsoft:update-disposition": "Listen",
  "com.microsoft:receive-by-sequence-number": "Listen",
  "com.microsoft:schedule-message": "Send",
  "com.microsoft:cancel-scheduled-message": "Send",
};

export function rightForOperation(operation: unknown): AccessRight {
  return (typeof operation === "string" ? operationRights[operation] : undefined) ?? "Manage";
}

/** Serves one $management request for an entity of a queue. Throws TypeError on a malformed request. */
export function handleManagement(
  request: Message,
  queue: EmulatedQueue,
  entity: Entity,
  faults: FaultBook,
): ManagementOutcome {
  const operation = (request.application_properties as Record<string, unknown> | undefined)?.operation;
  const body = (request.body ?? {}) as RequestBody;
  if (typeof body !== "object") throw new TypeError("A management request body must be a map");
  const serve = operations.get(operation);
  if (serve) return serve({ body, queue, entity, faults });
  return now({
    statusCode: 501,
    statusDescription: `The emulator does not implement ${String(operation)}`,
    errorCondition: "amqp:not-implemented",
  });
}

/** What an operation is served with: the request's body map and the entity it addresses. */
interface ManagementRequest {
  body: RequestBody;
  queue: EmulatedQueue;
  entity: Entity;
  faults: FaultBook;
}

const now = (reply: ManagementReply): ManagementOutcome => ({ kind: "reply", reply });

/** A Map, not an object: an operation named like an Object.prototype member must be unknown, not served. */
const operations = new Map<unknown, (request: ManagementRequest) => ManagementOutcome>([
  ["com.microsoft:peek-message", peekMessages],
  ["com.microsoft:renew-lock", renewLocks],
  ["com.microsoft:update-disposition", updateDisposition],
  ["com.microsoft:receive-by-sequence-number", receiveBySequenceNumber],
  ["com.microsoft:schedule-message", scheduleMessages],
  ["com.microsoft:cancel-scheduled-message", cancelScheduledMessages],
]);

function peekMessages({ body, queue, entity }: ManagementRequest): ManagementOutcome {
  const from = toSequenceNumber(body["from-sequence-number"]);
  const count = Number(body["message-count"]);
  if (!Number.isInteger(count) || count < 1) throw new TypeError("message-count must be a positive integer");
  const records = queue.peek(entity, from, count);
  if (records.length === 0) return now({ statusCode: 204, statusDescription: "No messages" });
  return now(
    ok({
      messages: records.map((record) => ({
        message: encodeForDelivery(record, {
          deliveryCount: headerDeliveryCount(record),
          ...(record.lock ? { lockedUntil: record.lock.lockedUntil } : {}),
          state: recordState(record),
        }),
      })),
    }),
  );
}

function renewLocks({ body, queue, entity, faults }: ManagementRequest): ManagementOutcome {
  const tokens = list(body["lock-tokens"]).map(toLockToken);
  const run = (): ManagementReply => {
    const expirations: Date[] = [];
    for (const token of tokens) {
      const until = queue.renew(entity, token);
      if (until === undefined) return lockLost();
      expirations.push(new Date(until));
    }
    return ok({ expirations });
  };
  const verdict = faults.check("renewLock", queue.name, () => lockedSnapshots(queue, entity, tokens));
  return withFault(verdict, run);
}

function updateDisposition({ body, queue, entity, faults }: ManagementRequest): ManagementOutcome {
  const tokens = list(body["lock-tokens"]).map(toLockToken);
  const status = String(body["disposition-status"]);
  const disposition = dispositions[status];
  if (!disposition) throw new TypeError(`Unknown disposition-status ${status}`);
  const run = (): ManagementReply => {
    for (const token of tokens) {
      const result = queue.settle(entity, token, disposition.settlement(body));
      if (result !== "settled") return result === "lockLost" ? lockLost() : notAllowed();
    }
    return ok();
  };
  const verdict = faults.check(disposition.operation, queue.name, () => lockedSnapshots(queue, entity, tokens));
  return withFault(verdict, run);
}

function receiveBySequenceNumber({ body, queue, entity }: ManagementRequest): ManagementOutcome {
  const sequenceNumbers = list(body["sequence-numbers"]).map(toSequenceNumber);
  const peekLock = Number(body["receiver-settle-mode"] ?? 1) !== 0;
  try {
    const received = queue.receiveDeferred(entity, sequenceNumbers, peekLock);
    return now(
      ok({
        messages: received.map(({ record, lock, deliveryCount }) => ({
          message: encodeForDelivery(record, {
            deliveryCount,
            ...(lock ? { lockedUntil: lock.lockedUntil, lockToken: lock.token } : {}),
            state: recordState(record),
          }),
          ...(lock ? { "lock-token": rhea.types.wrap_uuid(uuidBytes(lock.token)) } : {}),
        })),
      }),
    );
  } catch (error) {
    if (!(error instanceof MessageNotFoundError)) throw error;
    return now({ statusCode: 404, statusDescription: error.message, errorCondition: "com.microsoft:message-not-found" });
  }
}

function scheduleMessages({ body, queue, entity }: ManagementRequest): ManagementOutcome {
  if (entity.isDeadLetter) throw new TypeError("Messages cannot be scheduled on a dead-letter subqueue");
  const entries = list(body.messages) as RequestBody[];
  const sequenceNumbers = entries.map((entry) => {
    if (!Buffer.isBuffer(entry.message)) throw new TypeError("A scheduled message must be an encoded message");
    const message = decodeMessage(entry.message);
    if (message.message_id === undefined && typeof entry["message-id"] === "string") {
      message.message_id = entry["message-id"];
    }
    return queue.enqueue(message);
  });
  queue.pump(queue.main);
  return now(ok({ "sequence-numbers": rhea.types.wrap_array(sequenceNumbers, 0x81, undefined) }));
}

function cancelScheduledMessages({ body, queue }: ManagementRequest): ManagementOutcome {
  for (const sequenceNumber of list(body["sequence-numbers"]).map(toSequenceNumber)) {
    queue.cancelScheduled(sequenceNumber);
  }
  return now(ok());
}

function withFault(verdict: FaultVerdict | undefined, run: () => ManagementReply): ManagementOutcome {
  if (!verdict) return { kind: "reply", reply: run() };
  if (verdict.action === "serverBusy") return { kind: "reply", reply: serverBusyReply() };
  if (verdict.action === "never") return { kind: "never" };
  return { kind: "later", delayMs: verdict.delayMs, run };
}

function lockedSnapshots(queue: EmulatedQueue, entity: Entity, tokens: string[]) {
  return tokens.flatMap((token) => {
    const lock = entity.locks.get(token);
    return lock ? [snapshotOf(lock.record)] : [];
  });
}

function list(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  throw new TypeError("Expected an AMQP array or list");
}

function optionalText(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function modified(body: RequestBody): Record<string, unknown> | undefined {
  const properties = body["properties-to-modify"];
  return properties && typeof properties === "object" ? (properties as Record<string, unknown>) : undefined;
}
