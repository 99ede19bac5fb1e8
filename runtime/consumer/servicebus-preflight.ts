// At start, the queue must be there and reachable: a mistyped queue name or namespace, a firewall or a bad key is a
// configuration error the operator must see at once (the process exits 2), not a reconnect loop logging the same
// error many times a second. Outages after a good start are the SDK's to ride out, their log lines throttled.
import { errorMessage } from "../core/describe-error.js";
import { ConfigurationError } from "../core/errors.js";
import { loadIdentity } from "../sdk/load-identity.js";
import { loadServiceBus } from "../sdk/load-service-bus.js";
import { isServiceBusError } from "../sdk/service-bus-error.js";
import { serviceBusHost, serviceBusRefusal, wrongKeyMessage } from "../servicebus/servicebus-refusal.js";
import { consumerQueueRights } from "../../tuning/index.js";
import { processEnvironment, runtimeEnvironment, type Environment } from "../core/environment.js";

/** The consumer cannot start with this configuration (the run contract's settings): a ConfigurationError, exit 2. */
export class ConsumerStartError extends ConfigurationError {
  override name = "ConsumerStartError";
}

/** Peeks one message with a short-lived client and few retries; throws a ConsumerStartError naming the setting to fix. */
export async function checkQueueReachable(connectionString: string | undefined, queueName: string, env: Environment = processEnvironment()): Promise<void> {
  const retryOptions = { maxRetries: 2, retryDelayInMs: 500, timeoutInMs: 10_000 };
  const namespace = runtimeEnvironment(env).serviceBusNamespace;
  const { ServiceBusClient } = await loadServiceBus();
  const client =
    connectionString !== undefined && connectionString !== ""
      ? new ServiceBusClient(connectionString, { retryOptions })
      : namespace
        ? new ServiceBusClient(namespace, new (await loadIdentity()).DefaultAzureCredential(), { retryOptions })
        : undefined;
  if (!client) throw new ConsumerStartError("no Service Bus connection: set SERVICEBUS_CONNECTION_STRING, or SERVICEBUS_FULLY_QUALIFIED_NAMESPACE");
  const receiver = client.createReceiver(queueName);
  try {
    await receiver.peekMessages(1);
  } catch (error) {
    throw new ConsumerStartError(explain(error, queueName, serviceBusHost(connectionString) ?? namespace ?? "the namespace", connectionString));
  } finally {
    await receiver.close().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}

function explain(error: unknown, queueName: string, host: string, connectionString: string | undefined): string {
  const message = errorMessage(error);
  if (isServiceBusError(error) && error.code === "MessagingEntityNotFound") {
    return `queue "${queueName}" does not exist on ${host}: check SERVICEBUS_QUEUE (and the namespace) in the run contract`;
  }
  const refusal = serviceBusRefusal(error);
  if (refusal?.kind === "key") return wrongKeyMessage(connectionString, host, refusal.detail);
  if (refusal?.kind === "rights") {
    return (
      `the credentials for queue "${queueName}" on ${host} lack ${refusal.rights.join(" and ")} (${refusal.detail}): the consumer needs ` +
      `${consumerQueueRights.sasRights.join(" and ")} on its queue (a shared access rule with both, or the roles ${consumerQueueRights.roles.join(" + ")} for an Entra identity)`
    );
  }
  if (refusal) {
    return `Service Bus refused the credentials for queue "${queueName}" on ${host} (${refusal.detail}): check the connection string's key or the identity's Listen/Send rights`;
  }
  return `cannot reach Service Bus at ${host} (${message}): check SERVICEBUS_CONNECTION_STRING or SERVICEBUS_FULLY_QUALIFIED_NAMESPACE and the network`;
}

/**
 * What kind of error this is, without what varies between occurrences: a Service Bus error's code (its message
 * carries tracking ids, timestamps and entity paths that make every line unique), else a Node system error's code
 * (ECONNRESET), else the error's name.
 */
export function errorKind(error: unknown): string {
  if (isServiceBusError(error)) return `ServiceBusError ${error.code}`;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" && code !== "" ? `${error.name} ${code}` : error.name;
  }
  return typeof error;
}

/**
 * The receiver's error log after a good start: the first error of a kind (its source and `errorKind`) at once,
 * repeats of that kind at most once per interval that doubles up to `maxMs` (with how many were folded), so an
 * outage costs a few lines, not a flood, even though every message of the SDK's differs.
 */
export function throttledErrorLog(log: (line: string) => void, now: () => number = Date.now, firstMs = 1_000, maxMs = 60_000) {
  const seen = new Map<string, { next: number; interval: number; folded: number }>();
  return (kind: string, line: string): void => {
    const state = seen.get(kind);
    const at = now();
    if (!state) {
      seen.set(kind, { next: at + firstMs, interval: firstMs, folded: 0 });
      log(line);
      return;
    }
    if (at < state.next) {
      state.folded++;
      return;
    }
    log(state.folded > 0 ? `${line} (and ${state.folded} more of this kind)` : line);
    state.interval = Math.min(maxMs, state.interval * 2);
    state.next = at + state.interval;
    state.folded = 0;
  };
}

/** The subscription's `processError` log line, throttled per (error source, `errorKind`). */
export function receiverErrorLog(log: (line: string) => void, now: () => number = Date.now): (error: unknown, errorSource: string) => void {
  const throttled = throttledErrorLog(log, now);
  return (error, errorSource) => throttled(`${errorSource} ${errorKind(error)}`, `service bus ${errorSource}: ${errorMessage(error)}`);
}
