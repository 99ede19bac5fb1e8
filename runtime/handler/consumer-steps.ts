// The step boundaries of the billing flow, where the proving ground and the crash tests stop a replica.
import type { UsageEvent } from "../event/usage-event.js";

/** The step boundaries of the billing flow, in order. The proving ground crashes a replica at each. */
export const consumerSteps = ["afterClaim", "afterStripe", "afterRecord", "beforeComplete"] as const;
export type ConsumerStep = (typeof consumerSteps)[number];

/**
 * Called at each step boundary with the parsed event. A hook that returns a promise that never settles
 * simulates a process killed at that instant: the harness then closes the replica's connections and starts
 * a fresh replica; nothing after the boundary may run.
 */
export type StepHook = (step: ConsumerStep, event: UsageEvent) => void | Promise<void>;
