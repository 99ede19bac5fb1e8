// R competing replicas of one contender, in process. A replica "killed" at a step boundary hangs there forever (its
// hook never returns), is closed in the background (its receiver stops renewing locks, as a dead process's would)
// and a fresh replica takes its place at once. Dropping every connection instead would stall the live replicas for
// the SDK's 30 s reconnect delay.
// A replica "scaled in" is stopped the way Container Apps stops one: SIGTERM (its graceful close(), while its flows
// run on), then SIGKILL once the grace period is over. Whichever comes first, exit after close() or SIGKILL, the
// process is gone from then on: a flow still running freezes at its next boundary, its connections are closed in
// the background and its locks and leases lapse. A fresh replica then takes its place: scale-in lowered the count,
// and KEDA scales back out while the queue still holds a backlog (the harness's queue always does until it drains).
import type { ConsumerContext, RunningConsumer, StartConsumer, UsageEvent } from "../../runtime/index.js";
import type { ConsumerStep } from "../../runtime/handler/index.js";

export interface ReplicaFleetOptions {
  start: StartConsumer;
  context: Omit<ConsumerContext, "hook">;
  replicas: number;
  /** Whether this replica, at this step, with this event, dies now (asked once per boundary crossing). */
  shouldKill(step: ConsumerStep, event: UsageEvent): boolean;
  /** A killed replica's close() that takes longer is logged and left behind, like a dead process's sockets. */
  closeBoundMs: number;
  /** Whether this replica, at this step, with this event, is scaled in now (asked while it is not stopping). */
  shouldScaleIn?(step: ConsumerStep, event: UsageEvent): boolean;
  /** Time between a scaled-in replica's SIGTERM and its SIGKILL. */
  gracePeriodMs?: number;
  /** Called at each kill (and SIGKILL), before the fresh replica starts. */
  onKill?(): void;
  log?: (line: string) => void;
}

interface Replica {
  id: number;
  consumer?: RunningConsumer;
  dead: boolean;
  /** SIGTERM received: no second scale-in, and stop() leaves it to its grace period. */
  terminating?: boolean;
}

/** How scaled-in replicas ended: exited on their own within the grace period, or SIGKILLed at its end. */
export interface ScaleInCounts {
  drained: number;
  killed: number;
}

export class ReplicaFleet {
  readonly #options: ReplicaFleetOptions;
  readonly #live = new Set<Replica>();
  readonly #closing = new Set<Promise<void>>();
  #nextId = 0;
  #stopped = false;
  kills = 0;
  readonly scaleIns: ScaleInCounts = { drained: 0, killed: 0 };
  #terminating = 0;
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

  /** True while a scaled-in replica is within its grace period (its flows may still settle messages). */
  get busy(): boolean {
    return this.#terminating > 0;
  }

  async #startReplica(): Promise<void> {
    const replica: Replica = { id: this.#nextId++, dead: false };
    const hook = (step: ConsumerStep, event: UsageEvent): Promise<void> | undefined => {
      if (replica.dead) return new Promise<void>(() => {});
      if (this.#options.shouldKill(step, event)) {
        this.#kill(replica, step);
        return new Promise<void>(() => {});
      }
      // SIGTERM arrives at this instant; the flow itself runs on (the signal only starts the consumer's close()).
      if (!replica.terminating && this.#options.shouldScaleIn?.(step, event)) this.#scaleIn(replica, step);
      return undefined;
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
    // Killed during its grace period: the scale-in already closes it and starts its replacement.
    if (replica.terminating) return;
    const closing = this.#close(replica).finally(() => this.#closing.delete(closing));
    this.#closing.add(closing);
    if (!this.#stopped) void this.#startReplica();
  }

  #scaleIn(replica: Replica, step: ConsumerStep): void {
    const consumer = replica.consumer;
    if (!consumer || replica.dead || this.#stopped) return;
    const graceMs = this.#options.gracePeriodMs ?? 0;
    replica.terminating = true;
    this.#live.delete(replica);
    this.#terminating++;
    this.#options.log?.(`replica ${replica.id} scaled in at ${step}: SIGTERM, SIGKILL in ${graceMs} ms`);
    const closed = consumer.close().then(
      () => true,
      (error: unknown) => {
        this.#options.log?.(`replica ${replica.id} close failed: ${error instanceof Error ? error.message : String(error)}`);
        return true;
      },
    );
    const ended = (async () => {
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), graceMs);
      });
      const exited = await Promise.race([closed, graceOver]);
      clearTimeout(timer);
      // Exited after close() (the generated main's process.exit) or SIGKILLed: nothing of the process runs on.
      replica.dead = true;
      if (exited) {
        this.scaleIns.drained++;
        this.#options.log?.(`replica ${replica.id} exited within its grace period`);
      } else {
        this.scaleIns.killed++;
        this.#options.log?.(`replica ${replica.id} SIGKILLed after ${graceMs} ms: flows still running are cut at their next step`);
        this.#options.onKill?.();
      }
      this.#terminating--;
      if (!this.#stopped) void this.#startReplica();
      if (!exited) await this.#bounded(replica, closed);
    })();
    const tracked = ended.finally(() => this.#closing.delete(tracked));
    this.#closing.add(tracked);
  }

  async #close(replica: Replica): Promise<void> {
    replica.dead = true;
    this.#live.delete(replica);
    const consumer = replica.consumer;
    if (!consumer) return;
    const closed = consumer.close().then(
      () => true,
      (error: unknown) => {
        this.#options.log?.(`replica ${replica.id} close failed: ${error instanceof Error ? error.message : String(error)}`);
        return true;
      },
    );
    await this.#bounded(replica, closed);
  }

  /** Waits for a replica's close() at most closeBoundMs; one that takes longer is logged and left behind. */
  async #bounded(replica: Replica, closed: Promise<boolean>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bounded = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.#options.closeBoundMs);
    });
    const inTime = await Promise.race([closed, bounded]);
    clearTimeout(timer);
    if (!inTime) this.#options.log?.(`replica ${replica.id} did not close within ${this.#options.closeBoundMs} ms: left behind`);
  }
}
