// `isServiceBusError` without importing @azure/service-bus: the settlement step, the start check and the DLQ tools
// look at errors on paths where the SDK may not be loaded yet (it loads when a client connects, runtime/sdk/). The
// SDK's own guard is a shape check, `isObjectWithProperties(err, ["name"]) && err.name === "ServiceBusError"`
// (@azure/service-bus 7.9, serviceBusError.ts; @azure/core-util's typeGuards.ts: a non-null object with the property),
// and this is the same check, so an error is one exactly when the SDK says so.
import type { ServiceBusError } from "@azure/service-bus";

/** True for a Service Bus error (from any copy of the SDK), as the SDK's `isServiceBusError` decides. */
export function isServiceBusError(error: unknown): error is ServiceBusError {
  return typeof error === "object" && error !== null && "name" in error && error.name === "ServiceBusError";
}

/**
 * The Service Bus error in `error` (with `code`, when given): the error itself, or the first one inside the
 * AggregateError the SDK throws after its retries (each attempt's error; a send over AMQP wraps its error too).
 */
export function serviceBusErrorIn(error: unknown, code?: string): ServiceBusError | undefined {
  if (isServiceBusError(error)) return code === undefined || error.code === code ? error : undefined;
  if (error instanceof AggregateError) {
    for (const inner of error.errors as unknown[]) {
      const found = serviceBusErrorIn(inner, code);
      if (found) return found;
    }
  }
  return undefined;
}
