// What the fault commands wait on: a condition within a bound (they judge the answer), and a queue with nothing
// active, locked or scheduled (no billing under way, so a check that counts deliveries or keys sees only its own).
import type { ModelWorld } from "./model-world.js";

/** Polls `what` every 100 ms; false when it still does not hold after `ms`. */
export async function until(what: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/** Nothing on the run's queue is waiting, locked or scheduled for a retry. */
export function queueCalm(world: ModelWorld): boolean {
  const counts = world.sandbox.serviceBus.counts(world.queue);
  return counts.active + counts.locked + counts.scheduled === 0;
}
