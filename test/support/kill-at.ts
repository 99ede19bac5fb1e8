// A replica "killed" at a step boundary: the hook freezes the first matching flow there for good, as a process
// killed at that instant would (runtime/consumer/consumer-contract.ts); `arrived` resolves when that happens.
import type { ConsumerStep, StepHook } from "../../runtime/handler/consumer-steps.js";
import type { UsageEvent } from "../../runtime/event/usage-event.js";

export function killAt(step: ConsumerStep, matches: (event: UsageEvent) => boolean = () => true): { hook: StepHook; arrived: Promise<void> } {
  let killed = false;
  let reached!: () => void;
  const arrived = new Promise<void>((resolve) => (reached = resolve));
  const hook: StepHook = (at, event) => {
    if (killed || at !== step || !matches(event)) return;
    killed = true;
    reached();
    return new Promise<void>(() => {});
  };
  return { hook, arrived };
}
