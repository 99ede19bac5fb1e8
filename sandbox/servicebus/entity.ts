import type { Lock, MessageRecord } from "./message-record.js";
import { MinHeap } from "./min-heap.js";

/** A receive link as the broker sees it: how many messages it takes now, and how to hand one over. */
export interface Consumer {
  readonly peekLock: boolean;
  capacity(): number;
  /** `deliveryCount` is the AMQP header value (prior deliveries). `lock` is absent in receiveAndDelete mode. */
  deliver(record: MessageRecord, lock: Lock | undefined, deliveryCount: number): void;
  /** Called after a pump pass, so a draining link can report it has nothing more. */
  afterPump(): void;
}

/**
 * One entity: a queue or its dead-letter subqueue. Active messages leave in sequence-number order: new messages
 * append to a FIFO (their numbers only grow), returned ones (abandon, lock expiry) go to a heap, and the next
 * message is the smaller of the two fronts, so delivery never scans the queue.
 */
export class Entity {
  /** Every message the entity holds, in any state, by sequence number. */
  readonly live = new Map<number, MessageRecord>();
  readonly locks = new Map<string, Lock>();
  readonly deferred = new Map<number, MessageRecord>();
  readonly consumers: Consumer[] = [];
  /** Deliveries so far (peek-lock and receive-and-delete, redeliveries included). */
  deliveries = 0;
  #fresh: MessageRecord[] = [];
  #head = 0;
  readonly #returned = new MinHeap<MessageRecord>((a, b) => a.sequenceNumber < b.sequenceNumber);
  #cursor = 0;
  #pumping = false;

  constructor(
    readonly path: string,
    readonly isDeadLetter: boolean,
  ) {}

  /** Makes a message available to receivers (its state must already be "active"). */
  activate(record: MessageRecord): void {
    const last = this.#fresh[this.#fresh.length - 1];
    if (this.#head === this.#fresh.length || (last !== undefined && record.sequenceNumber > last.sequenceNumber)) {
      this.#fresh.push(record);
    } else {
      this.#returned.push(record);
    }
  }

  /** The next active message in sequence order, skipping ones that left the active state while queued. */
  popActive(): MessageRecord | undefined {
    for (;;) {
      const fresh = this.#fresh[this.#head];
      const returned = this.#returned.peek();
      let next: MessageRecord | undefined;
      if (fresh && (!returned || fresh.sequenceNumber < returned.sequenceNumber)) {
        next = fresh;
        this.#fresh[this.#head] = undefined as unknown as MessageRecord;
        this.#head++;
        this.#compact();
      } else {
        next = this.#returned.pop();
      }
      if (!next) return undefined;
      if (next.state === "active") return next;
    }
  }

  get hasConsumers(): boolean {
    return this.consumers.length > 0;
  }

  addConsumer(consumer: Consumer): void {
    this.consumers.push(consumer);
  }

  removeConsumer(consumer: Consumer): void {
    const index = this.consumers.indexOf(consumer);
    if (index >= 0) this.consumers.splice(index, 1);
  }

  /**
   * Hands active messages to consumers with credit, one per consumer per round so competing receivers share.
   * `take` returns the next deliverable message; `hand` delivers it to a consumer.
   */
  pump(take: () => MessageRecord | undefined, hand: (consumer: Consumer, record: MessageRecord) => void): void {
    if (this.#pumping || this.consumers.length === 0) return;
    this.#pumping = true;
    try {
      let progressed = true;
      while (progressed) {
        progressed = false;
        const count = this.consumers.length;
        for (let i = 0; i < count; i++) {
          const consumer = this.consumers[(this.#cursor + i) % count];
          if (!consumer || consumer.capacity() <= 0) continue;
          const record = take();
          if (!record) return;
          this.#cursor = (this.#cursor + i + 1) % count;
          hand(consumer, record);
          progressed = true;
          break;
        }
      }
    } finally {
      this.#pumping = false;
      for (const consumer of [...this.consumers]) consumer.afterPump();
    }
  }

  #compact(): void {
    if (this.#head === this.#fresh.length) {
      this.#fresh = [];
      this.#head = 0;
    } else if (this.#head > 4096 && this.#head * 2 > this.#fresh.length) {
      this.#fresh = this.#fresh.slice(this.#head);
      this.#head = 0;
    }
  }
}
