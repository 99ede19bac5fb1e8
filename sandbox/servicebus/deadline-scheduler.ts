import { MinHeap } from "./min-heap.js";

interface Deadline {
  at: number;
  order: number;
  run: () => void;
}

/**
 * Every timed event of one emulator (lock expiry, scheduled enqueue, TTL expiry) in one heap behind one timer, so
 * thousands of locks cost one `setTimeout`, and `stop()` leaves no handle behind. Callers re-check their own state
 * when a deadline fires (a renewed lock simply schedules a new deadline; the stale one finds nothing to do).
 */
export class DeadlineScheduler {
  readonly #heap = new MinHeap<Deadline>((a, b) => a.at < b.at || (a.at === b.at && a.order < b.order));
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;
  #order = 0;
  #stopped = false;

  at(time: number, run: () => void): void {
    if (this.#stopped) return;
    this.#heap.push({ at: time, order: this.#order++, run });
    if (time < this.#timerAt) this.#arm();
  }

  stop(): void {
    this.#stopped = true;
    this.#heap.clear();
    this.#disarm();
  }

  #arm(): void {
    this.#disarm();
    const next = this.#heap.peek();
    if (!next) return;
    this.#timerAt = next.at;
    // Node caps timers at 2^31-1 ms; a far deadline just re-arms when that fires.
    const wait = Math.min(Math.max(0, next.at - Date.now()), 2 ** 31 - 1);
    this.#timer = setTimeout(() => this.#fire(), wait);
    this.#timer.unref();
  }

  #disarm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = Date.now();
    for (let next = this.#heap.peek(); next && next.at <= now && !this.#stopped; next = this.#heap.peek()) {
      this.#heap.pop();
      next.run();
    }
    if (!this.#stopped) this.#arm();
  }
}
