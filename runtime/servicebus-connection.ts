// One way to connect to Service Bus for the consumer and the DLQ tools: a connection string, or a namespace with
// DefaultAzureCredential (managed identity in Azure, your az login locally).
import { DefaultAzureCredential } from "@azure/identity";
import { ServiceBusClient, type ServiceBusClientOptions } from "@azure/service-bus";
import { ConfigurationError } from "./errors.js";

export function connectServiceBus(
  connectionString: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  options: ServiceBusClientOptions = {},
): ServiceBusClient {
  if (connectionString !== undefined && connectionString !== "") return new ServiceBusClient(connectionString, options);
  const namespace = env.SERVICEBUS_FULLY_QUALIFIED_NAMESPACE;
  if (namespace === undefined || namespace === "") {
    throw new ConfigurationError(
      "no Service Bus connection: set SERVICEBUS_CONNECTION_STRING (or pass a connection string), or SERVICEBUS_FULLY_QUALIFIED_NAMESPACE for DefaultAzureCredential",
    );
  }
  return new ServiceBusClient(namespace, new DefaultAzureCredential(), options);
}
