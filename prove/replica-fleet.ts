// R competing replicas of one contender, in process. A replica "killed" at a step boundary hangs there forever (its
// hook never returns), is closed in the background (its receiver stops renewing locks, as a dead process's would)
// and a fresh replica takes its place at once. Dropping every connection instead would stall the live replicas for
// the SDK's 30 s reconnect delay.
import type { ConsumerContext, RunningConsumer, StartConsumer, ConsumerStep, UsageEvent } from "../runtime/index.js";

export interface ReplicaFleetOptions {
  start: StartConsumer;
  context: Omit<ConsumerContext, "hook">;
  replicas: number;
  /** Whether this replica, at this step, with this event, dies now (asked once per boundary crossing). */
  shouldKill(step: ConsumerStep, event: UsageEvent): boolean;
  /** A killed replica's close() that takes longer is logged and left behind, like a dead process's sockets. */
  closeBoundMs: number;
  /** Called at each kill, before the fresh replica starts. */
  onKill?(): void;
  log?: (line: string) => void;
}

interface Replica {
  id: number;
  consumer?: RunningConsumer;
  dead: boolean;
}

export class ReplicaFleet {
  readonly #options: ReplicaFleetOptions;
  readonly #live = new Set<Replica>();
  readonly #closing = new Set<Promise<void>>();
  #nextId = 0;
  #stopped = false;
  kills = 0;
  /** Errors from starting replicas (a contender that cannot start is reported, not retried forever). */
  readonly startErrors: string[] = [];

  constructor(options: ReplicaFleetOptions) {
    if (!Number.isInteger(options.replicas) || options.replicas < 1) {
      throw new RangeError(`replicas must be a positive integer, got ${options.replicas}`);
    }
    this.#options = options;
  }

  async start(): Promise<void> {
    await Promise.all(Array.from({ length: this.#options.replicas }, () => this.#startReplica()));
    if (this.#live.size === 0) throw new Error(`no replica started: ${this.startErrors[0] ?? "unknown error"}`);
  }

  /** Closes every replica (bounded) and waits for killed ones still closing. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all([...this.#live].map((replica) => this.#close(replica)));
    await Promise.all(this.#closing);
  }

  async #startReplica(): Promise<void> {
    const replica: Replica = { id: this.#nextId++, dead: false };
    const hook = (step: ConsumerStep, event: UsageEvent): Promise<void> | undefined => {
      if (replica.dead) return new Promise<void>(() => {});
      if (!this.#options.shouldKill(step, event)) return undefined;
      this.#kill(replica, step);
      return new Promise<void>(() => {});
    };
    try {
      replica.consumer = await this.#options.start({ ...this.#options.context, hook });
      if (this.#stopped) await this.#close(replica);
      else this.#live.add(replica);
    } catch (error) {
      this.startErrors.push(error instanceof Error ? error.message : String(error));
    }
  }

  #kill(replica: Replica, step: ConsumerStep): void {
    if (replica.dead) return;
    replica.dead = true;
    this.kills++;
    this.#live.delete(replica);
    this.#options.log?.(`replica ${replica.id} killed at ${step}`);
    this.#options.onKill?.();
    const closing = this.#close(replica).finally(() => this.#closing.delete(closing));
    this.#closing.add(closing);
    if (!this.#stopped) void this.#startReplica();
  }

  async #close(replica: Replica): Promise<void> {
    replica.dead = true;
    this.#live.delete(replica);
    const consumer = replica.consumer;
    if (!consumer) return;
    let timer: NodeJS.Timeout | undefined;
    const closed = consumer.close().then(
      () => true,
      (error: unknown) => {
        this.#options.log?.(`replica ${replica.id} close failed: ${error instanceof Error ? error.message : String(error)}`);
        return true;
      },
    );
    const bounded = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.#options.closeBoundMs);
    });
    const inTime = await Promise.race([closed, bounded]);
    clearTimeout(timer);
    if (!inTime) this.#options.log?.(`replica ${replica.id} did not close within ${this.#options.closeBoundMs} ms: left behind`);
  }
}
