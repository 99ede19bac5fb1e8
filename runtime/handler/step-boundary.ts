// The step hooks at the flow's boundaries (consumer-steps.ts): where the proving ground and the crash tests freeze a
// replica. A flow frozen in a hook while the consumer stopped must not continue past the boundary.
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import { ChargeguardSignal } from "../core/errors.js";
import type { ConsumerStep } from "./consumer-steps.js";
import type { HandlerSettings } from "./handler-settings.js";

/** A hook froze the flow and the consumer stopped meanwhile: nothing after the boundary may run. */
export class Stopped extends ChargeguardSignal {
  override name = "Stopped";
}

/** Crosses one boundary: runs the hook, waits if it froze, throws Stopped if the consumer stopped meanwhile. */
export type StepBoundary = (name: ConsumerStep, event: unknown) => Promise<void>;

const noHook: StepBoundary = () => Promise.resolve();

/** The boundaries of one message's flow (a shared no-op when no hook is set: nothing allocated per message). */
export function stepBoundaries(settings: HandlerSettings, message: ServiceBusReceivedMessage): StepBoundary {
  const hook = settings.hook as ((step: ConsumerStep, event: unknown) => void | Promise<void>) | undefined;
  if (!hook) return noHook;
  return async (name, event) => {
    const stoppedBefore = settings.isStopped?.() ?? false;
    const waiting = hook(name, event);
    // A hook that returns at once is no wait: nothing froze, whatever it did (even stopping the consumer).
    if (!waiting) return;
    settings.onHookWait?.(message, true);
    try {
      await waiting;
    } finally {
      settings.onHookWait?.(message, false);
    }
    // Only a flow frozen in a hook while the consumer stopped is cut off (a simulated crash). A flow that merely
    // crosses a boundary during a graceful stop (SIGTERM) runs to its settlement: that is what the stop waits for.
    if (!stoppedBefore && settings.isStopped?.()) throw new Stopped(name);
  };
}
