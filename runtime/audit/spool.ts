// Payment records partitioned by customer, kept in memory while few and spilled to temporary files when many, so
// the audit's memory is bounded by one partition (about total / partitions records), not by the account's size.
// Detection needs all of one customer's payments together; a hash of the customer picks the partition.
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { appendFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PaymentRecord } from "./payment-record.js";

export interface SpoolOptions {
  /** Partitions the records are spread over; default 64. */
  partitions?: number;
  /** Records held in memory before all partitions are appended to disk; default 20,000. */
  memoryRecords?: number;
  /** Where the temporary directory goes; default the OS's. */
  tempRoot?: string;
}

export class PaymentSpool {
  readonly #partitions: number;
  readonly #memoryRecords: number;
  readonly #tempRoot: string;
  readonly #buffers: string[][];
  #buffered = 0;
  #dir: string | undefined;
  #spilled = new Set<number>();
  #removeOnExit: (() => void) | undefined;
  /** Records written in all. */
  size = 0;

  constructor(options: SpoolOptions = {}) {
    this.#partitions = options.partitions ?? 64;
    this.#memoryRecords = options.memoryRecords ?? 20_000;
    this.#tempRoot = options.tempRoot ?? tmpdir();
    this.#buffers = Array.from({ length: this.#partitions }, () => []);
  }

  async add(record: PaymentRecord): Promise<void> {
    this.#buffers[partitionOf(record.customer, this.#partitions)]!.push(JSON.stringify(record));
    this.size++;
    if (++this.#buffered >= this.#memoryRecords) await this.#spill();
  }

  /** Each partition's records grouped by customer, one partition at a time. */
  async *customers(): AsyncGenerator<PaymentRecord[]> {
    for (let partition = 0; partition < this.#partitions; partition++) {
      const lines = this.#spilled.has(partition) ? (await readFile(this.#file(partition), "utf8")).split("\n").filter((line) => line !== "") : [];
      lines.push(...this.#buffers[partition]!);
      this.#buffers[partition] = [];
      const byCustomer = new Map<string, PaymentRecord[]>();
      for (const line of lines) {
        const record = JSON.parse(line) as PaymentRecord;
        const list = byCustomer.get(record.customer);
        if (list) list.push(record);
        else byCustomer.set(record.customer, [record]);
      }
      yield* byCustomer.values();
    }
  }

  /** Removes the temporary files. */
  async close(): Promise<void> {
    this.#removeOnExit?.();
    this.#removeOnExit = undefined;
    if (this.#dir !== undefined) await rm(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
  }

  async #spill(): Promise<void> {
    if (this.#dir === undefined) {
      this.#dir = await mkdtemp(join(this.#tempRoot, "chargeguard-audit-"));
      this.#removeOnExit = removeOnExit(this.#dir);
    }
    for (let partition = 0; partition < this.#partitions; partition++) {
      const lines = this.#buffers[partition]!;
      if (lines.length === 0) continue;
      await appendFile(this.#file(partition), `${lines.join("\n")}\n`);
      this.#spilled.add(partition);
      this.#buffers[partition] = [];
    }
    this.#buffered = 0;
  }

  #file(partition: number): string {
    return join(this.#dir as string, `partition-${partition}.jsonl`);
  }
}

function partitionOf(customer: string, partitions: number): number {
  return createHash("sha1").update(customer).digest().readUInt32BE(0) % partitions;
}

/**
 * The spilled files hold customer and payment ids: an operator's Ctrl-C or a container's SIGTERM ends the process
 * without running the audit's `finally`, so they are removed on the signal (and on process.exit()), and the process
 * then ends by that signal as it would have. Returns the function that unregisters it (after a normal close).
 */
function removeOnExit(dir: string): () => void {
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  const onSignal = (signal: NodeJS.Signals) => {
    remove();
    unregister();
    // Nobody else listens: end by the signal, as Node's default would have (a shell then reports 130 for SIGINT).
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const unregister = () => {
    for (const signal of signals) process.off(signal, onSignal);
    process.off("exit", remove);
  };
  for (const signal of signals) process.on(signal, onSignal);
  process.on("exit", remove);
  return unregister;
}
