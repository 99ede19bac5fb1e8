// @azure/service-bus (0.7 s to import alone): loaded when the consumer starts or a DLQ tool connects.
import { loadOnce, missingDependency } from "./load-once.js";

export type ServiceBusModule = typeof import("@azure/service-bus");

/** The `@azure/service-bus` module, imported on first use; a ConfigurationError naming the package when absent. */
export const loadServiceBus: () => Promise<ServiceBusModule> = loadOnce(
  () => import("@azure/service-bus"),
  missingDependency("@azure/service-bus", "connecting to Service Bus"),
);
