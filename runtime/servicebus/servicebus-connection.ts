// One way to connect to Service Bus for the consumer and the DLQ tools: a connection string, or a namespace with
// DefaultAzureCredential (managed identity in Azure, your az login locally). The SDKs load here, on the first
// connection, not when the runtime is imported (runtime/sdk/).
import type { ServiceBusClient, ServiceBusClientOptions } from "@azure/service-bus";
import { ConfigurationError } from "../core/errors.js";
import { loadIdentity } from "../sdk/load-identity.js";
import { loadServiceBus } from "../sdk/load-service-bus.js";
import { processEnvironment, runtimeEnvironment, type Environment } from "../core/environment.js";

export async function connectServiceBus(
  connectionString: string | undefined,
  env: Environment = processEnvironment(),
  options: ServiceBusClientOptions = {},
): Promise<ServiceBusClient> {
  const { ServiceBusClient } = await loadServiceBus();
  if (connectionString !== undefined && connectionString !== "") return new ServiceBusClient(connectionString, options);
  const namespace = runtimeEnvironment(env).serviceBusNamespace;
  if (namespace === undefined) {
    throw new ConfigurationError(
      "no Service Bus connection: set SERVICEBUS_CONNECTION_STRING (or pass a connection string), or SERVICEBUS_FULLY_QUALIFIED_NAMESPACE for DefaultAzureCredential",
    );
  }
  const { DefaultAzureCredential } = await loadIdentity();
  return new ServiceBusClient(namespace, new DefaultAzureCredential(), options);
}
