import { randomUUID } from "node:crypto";
import type { Message } from "rhea";
import type { DeadlineScheduler } from "./deadline-scheduler.js";
import { Entity, type Consumer } from "./entity.js";
import { headerDeliveryCount, modifyApplicationProperties, type Lock, type MessageRecord } from "./message-record.js";
import type { ResolvedQueueOptions } from "./options.js";
import { snapshotOf, type QueueCounts, type QueueSnapshot } from "./snapshot.js";

export const deadLetterSuffix = "/$DeadLetterQueue";

/** What a receiver asked for when it settled a peek-locked message. */
export type Settlement =
  | { kind: "complete" }
  | { kind: "abandon"; properties?: Record<string, unknown> }
  | { kind: "defer"; properties?: Record<string, unknown> }
  | { kind: "deadLetter"; reason?: string; description?: string; properties?: Record<string, unknown> }
  /** AMQP `released`: back to the queue without counting the delivery. */
  | { kind: "release" };

/** `notAllowed`: Service Bus refuses the settlement (dead-lettering a message of the dead-letter subqueue). */
export type SettleResult = "settled" | "lockLost" | "notAllowed";

export class MessageNotFoundError extends Error {
  constructor(readonly sequenceNumber: number) {
    super(`The message with sequence number ${sequenceNumber} was not found among the deferred messages.`);
  }
}

const maxDeliveryReason = "MaxDeliveryCountExceeded";
const expiredReason = "TTLExpiredException";

/** One emulated queue: its main entity, its dead-letter subqueue, scheduling, duplicate detection and expiry. */
export class EmulatedQueue {
  readonly main: Entity;
  readonly deadLetter: Entity;
  readonly #scheduled = new Map<number, MessageRecord>();
  /** messageId -> [first seen at, sequence number]; insertion order is time order, so pruning pops the front. */
  readonly #seen = new Map<string, [number, number]>();
  #nextSequence = 1;

  constructor(
    readonly name: string,
    readonly options: ResolvedQueueOptions,
    private readonly scheduler: DeadlineScheduler,
  ) {
    this.main = new Entity(name, false);
    this.deadLetter = new Entity(name + deadLetterSuffix, true);
  }

  /**
   * Accepts a message from a producer. Returns its sequence number; a duplicate (same messageId within the
   * detection window) is dropped and returns the original's number. The broker assigns a messageId when absent.
   */
  enqueue(message: Message, now = Date.now()): number {
    if (message.message_id === undefined || message.message_id === null) message.message_id = randomUUID();
    const messageId = messageIdText(message.message_id);
    const window = this.options.duplicateDetectionWindowMs;
    if (window !== undefined) {
      for (const [id, [seenAt]] of this.#seen) {
        if (seenAt + window > now) break;
        this.#seen.delete(id);
      }
      const original = this.#seen.get(messageId);
      if (original) return original[1];
    }
    const sequenceNumber = this.#nextSequence++;
    if (window !== undefined) this.#seen.set(messageId, [now, sequenceNumber]);
    const scheduledFor = scheduledTime(message);
    const record: MessageRecord = {
      sequenceNumber,
      messageId,
      message,
      enqueuedAt: now,
      expiresAt: undefined,
      deliveries: 0,
      state: "scheduled",
      deferred: false,
      scheduledFor,
      lock: undefined,
      deadLetterSource: undefined,
    };
    this.main.live.set(sequenceNumber, record);
    if (scheduledFor !== undefined && scheduledFor > now) {
      this.#scheduled.set(sequenceNumber, record);
      this.scheduler.at(scheduledFor, () => this.#activateScheduled(record));
    } else {
      this.#makeActive(record, now);
    }
    return sequenceNumber;
  }

  cancelScheduled(sequenceNumber: number): boolean {
    const record = this.#scheduled.get(sequenceNumber);
    if (!record) return false;
    this.#scheduled.delete(sequenceNumber);
    this.#remove(this.main, record);
    return true;
  }

  /** Delivers what it can to the entity's receivers. */
  pump(entity: Entity): void {
    entity.pump(
      () => this.#takeNext(entity),
      (consumer, record) => this.#hand(entity, consumer, record),
    );
  }

  /** The lock behind a token, or undefined when it is gone or lapsed (a lapsed lock is released on the spot). */
  liveLock(entity: Entity, token: string, now = Date.now()): Lock | undefined {
    const lock = entity.locks.get(token);
    if (!lock) return undefined;
    if (lock.lockedUntil <= now) {
      this.#release(entity, lock, true);
      return undefined;
    }
    return lock;
  }

  settle(entity: Entity, token: string, settlement: Settlement): SettleResult {
    const lock = this.liveLock(entity, token);
    if (!lock) return "lockLost";
    const record = lock.record;
    switch (settlement.kind) {
      case "complete":
        this.#unlock(entity, lock);
        this.#remove(entity, record);
        break;
      case "abandon":
        modifyApplicationProperties(record, settlement.properties);
        this.#release(entity, lock, true);
        break;
      case "release":
        record.deliveries = Math.max(0, record.deliveries - 1);
        this.#release(entity, lock, false);
        break;
      case "defer":
        modifyApplicationProperties(record, settlement.properties);
        this.#unlock(entity, lock);
        record.deferred = true;
        record.state = "deferred";
        entity.deferred.set(record.sequenceNumber, record);
        break;
      case "deadLetter":
        // Service Bus refuses to dead-letter a dead letter (amqp:not-allowed) and the message is delivered again
        // (the Azure SDK's "Throws error when dead lettering a dead lettered message").
        if (entity.isDeadLetter) {
          this.#release(entity, lock, false);
          return "notAllowed";
        }
        modifyApplicationProperties(record, settlement.properties);
        this.#unlock(entity, lock);
        this.#deadLetter(entity, record, settlement.reason, settlement.description);
        break;
    }
    return "settled";
  }

  /** Extends a lock by the queue's lock duration; undefined when the lock is gone. */
  renew(entity: Entity, token: string, now = Date.now()): number | undefined {
    const lock = this.liveLock(entity, token, now);
    if (!lock) return undefined;
    lock.lockedUntil = now + this.options.lockDurationMs;
    this.scheduler.at(lock.lockedUntil, () => this.#lockDeadline(entity, lock));
    return lock.lockedUntil;
  }

  /** Ends matching locks now, as if they had lapsed; returns how many. */
  expireLocks(entity: Entity, matches: (record: MessageRecord) => boolean): number {
    let count = 0;
    for (const lock of [...entity.locks.values()]) {
      if (!matches(lock.record)) continue;
      this.#release(entity, lock, true);
      count++;
    }
    return count;
  }

  /** receiveDeferredMessages: the deferred messages by sequence number, locked (peekLock) or removed. */
  receiveDeferred(
    entity: Entity,
    sequenceNumbers: number[],
    peekLock: boolean,
  ): Array<{ record: MessageRecord; lock: Lock | undefined; deliveryCount: number }> {
    const records = sequenceNumbers.map((sequenceNumber) => {
      const record = entity.deferred.get(sequenceNumber);
      if (!record) throw new MessageNotFoundError(sequenceNumber);
      return record;
    });
    return records
      .filter((record) => record.state === "deferred")
      .map((record) => {
        const deliveryCount = headerDeliveryCount(record);
        record.deliveries++;
        entity.deliveries++;
        if (!peekLock) {
          this.#remove(entity, record);
          return { record, lock: undefined, deliveryCount };
        }
        return { record, lock: this.#lock(entity, record), deliveryCount };
      });
  }

  /** peekMessages: up to `count` messages of any state from `fromSequenceNumber` on, without locking. */
  peek(entity: Entity, fromSequenceNumber: number, count: number): MessageRecord[] {
    const found: MessageRecord[] = [];
    for (const record of entity.live.values()) {
      if (record.sequenceNumber >= fromSequenceNumber) found.push(record);
    }
    // Live maps are in arrival order; the dead-letter subqueue receives out of sequence order.
    if (entity.isDeadLetter) found.sort((a, b) => a.sequenceNumber - b.sequenceNumber);
    return found.slice(0, count);
  }

  /** How many messages are where, and the deliveries so far: what `snapshot()` tells in numbers, without copying. */
  counts(): QueueCounts {
    const counts: QueueCounts = {
      active: 0,
      locked: 0,
      scheduled: 0,
      deferred: 0,
      deadLettered: this.deadLetter.live.size,
      deliveries: this.main.deliveries,
      deadLetterDeliveries: this.deadLetter.deliveries,
    };
    for (const record of this.main.live.values()) {
      if (record.state !== "removed") counts[record.state]++;
    }
    return counts;
  }

  snapshot(): QueueSnapshot {
    const snapshot: QueueSnapshot = {
      queue: this.name,
      receivers: this.main.consumers.length,
      active: [],
      locked: [],
      scheduled: [],
      deferred: [],
      deadLettered: [],
    };
    // The main entity's map is in sequence order already: numbers are assigned as messages are added.
    for (const record of this.main.live.values()) {
      if (record.state !== "removed") snapshot[record.state].push(snapshotOf(record));
    }
    snapshot.deadLettered = [...this.deadLetter.live.values()]
      .sort((a, b) => a.sequenceNumber - b.sequenceNumber)
      .map(snapshotOf);
    return snapshot;
  }

  #activateScheduled(record: MessageRecord): void {
    if (!this.#scheduled.delete(record.sequenceNumber)) return;
    this.#makeActive(record, Date.now());
    this.pump(this.main);
  }

  #makeActive(record: MessageRecord, now: number): void {
    record.enqueuedAt = record.scheduledFor ?? now;
    const ttl = effectiveTtl(record.message, this.options.defaultTtlMs);
    if (ttl !== undefined) {
      record.expiresAt = record.enqueuedAt + ttl;
      this.scheduler.at(record.expiresAt, () => {
        if (record.state === "active") this.#expire(record);
      });
    }
    record.state = "active";
    this.main.activate(record);
  }

  #takeNext(entity: Entity): MessageRecord | undefined {
    const now = Date.now();
    for (;;) {
      const record = entity.popActive();
      if (!record) return undefined;
      if (record.expiresAt !== undefined && record.expiresAt <= now && !entity.isDeadLetter) {
        this.#expire(record);
        continue;
      }
      return record;
    }
  }

  #hand(entity: Entity, consumer: Consumer, record: MessageRecord): void {
    const deliveryCount = headerDeliveryCount(record);
    record.deliveries++;
    entity.deliveries++;
    if (consumer.peekLock) {
      consumer.deliver(record, this.#lock(entity, record), deliveryCount);
    } else {
      this.#remove(entity, record);
      consumer.deliver(record, undefined, deliveryCount);
    }
  }

  #lock(entity: Entity, record: MessageRecord): Lock {
    const lock: Lock = { token: randomUUID(), record, lockedUntil: Date.now() + this.options.lockDurationMs };
    record.state = "locked";
    record.lock = lock;
    entity.locks.set(lock.token, lock);
    this.scheduler.at(lock.lockedUntil, () => this.#lockDeadline(entity, lock));
    return lock;
  }

  #lockDeadline(entity: Entity, lock: Lock): void {
    if (entity.locks.get(lock.token) !== lock || lock.lockedUntil > Date.now()) return;
    this.#release(entity, lock, true);
  }

  #unlock(entity: Entity, lock: Lock): void {
    entity.locks.delete(lock.token);
    lock.record.lock = undefined;
  }

  /** A lock ends without settlement (abandon, lapse, release): back to the queue, or on to the dead-letter queue. */
  #release(entity: Entity, lock: Lock, counted: boolean): void {
    this.#unlock(entity, lock);
    const record = lock.record;
    if (record.deferred) {
      record.state = "deferred";
      return;
    }
    if (!entity.isDeadLetter) {
      if (counted && record.deliveries >= this.options.maxDeliveryCount) {
        this.#deadLetter(
          entity,
          record,
          maxDeliveryReason,
          `Message could not be consumed after ${this.options.maxDeliveryCount} delivery attempts.`,
        );
        return;
      }
      if (record.expiresAt !== undefined && record.expiresAt <= Date.now()) {
        this.#expire(record);
        return;
      }
    }
    record.state = "active";
    entity.activate(record);
    this.pump(entity);
  }

  #expire(record: MessageRecord): void {
    if (this.options.deadLetteringOnMessageExpiration) {
      this.#deadLetter(this.main, record, expiredReason, "The message expired and was dead lettered.");
    } else {
      this.#remove(this.main, record);
    }
  }

  #deadLetter(from: Entity, record: MessageRecord, reason: string | undefined, description: string | undefined): void {
    modifyApplicationProperties(record, { DeadLetterReason: reason, DeadLetterErrorDescription: description });
    this.#remove(from, record);
    const copy: MessageRecord = {
      ...record,
      expiresAt: undefined,
      state: "active",
      deferred: false,
      scheduledFor: undefined,
      lock: undefined,
      deadLetterSource: this.name,
      // What the SDK showed on its last delivery (none: 0); deliveries from the subqueue leave it as it is.
      deadLetterDeliveryCount: Math.max(0, record.deliveries - 1),
    };
    this.deadLetter.live.set(copy.sequenceNumber, copy);
    this.deadLetter.activate(copy);
    this.pump(this.deadLetter);
  }

  #remove(entity: Entity, record: MessageRecord): void {
    record.state = "removed";
    entity.live.delete(record.sequenceNumber);
    entity.deferred.delete(record.sequenceNumber);
  }
}

function messageIdText(id: unknown): string {
  if (Buffer.isBuffer(id) && id.length === 16) {
    const hex = id.toString("hex");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  return String(id);
}

function scheduledTime(message: Message): number | undefined {
  const annotations = message.message_annotations as Record<string, unknown> | undefined;
  const value = annotations?.["x-opt-scheduled-enqueue-time"];
  if (value instanceof Date) return value.getTime();
  if (typeof value === "number") return value;
  return undefined;
}

function effectiveTtl(message: Message, defaultTtlMs: number | undefined): number | undefined {
  const own = typeof message.ttl === "number" && message.ttl > 0 ? message.ttl : undefined;
  if (own === undefined) return defaultTtlMs;
  return defaultTtlMs === undefined ? own : Math.min(own, defaultTtlMs);
}
