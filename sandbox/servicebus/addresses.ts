// Link addresses as clients write them. The JavaScript SDK attaches to `queue`, `queue/$DeadLetterQueue` and
// `queue/$management`; uamqp (Python's azure-servicebus 7.8) and newer Python SDKs attach to the same entities as
// absolute URLs, `amqps://<namespace host>/queue`, which Service Bus resolves to the same entity.

/** The entity path of a link address: the scheme and host of an absolute address removed, as is any leading slash. */
export function linkAddress(address: string): string {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(address);
  return (absolute ? address.slice(absolute[0].length) : address).replace(/^\/+/, "");
}

/** The management node's suffix: `queue/$management`, `queue/$DeadLetterQueue/$management`. */
export const managementSuffix = "/$management";
