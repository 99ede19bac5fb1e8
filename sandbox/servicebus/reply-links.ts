// The links a connection receives its $cbs and $management replies on. The JavaScript SDK names its reply link in
// the request's `reply_to`; uamqp (Python's azure-servicebus) sends no `reply_to` at all and reads the answer on the
// receive link it attached to the same node, in the same session, so a request without one is answered there.
import rhea, { type Connection, type Message, type Receiver, type Sender } from "rhea";
import { linkAddress } from "./addresses.js";

/** The status keys of a reply: `status-code` on $cbs, `statusCode` on $management. */
export type StatusKey = "status-code" | "statusCode";

export class ReplyLinks {
  readonly #links = new WeakMap<Connection, Sender[]>();

  /** Remembers a reply link: a receive link the client attached to $cbs or to an entity's $management node. */
  add(sender: Sender): void {
    const links = this.#links.get(sender.connection) ?? [];
    this.#links.set(sender.connection, [...links.filter((link) => !link.is_closed()), sender]);
  }

  /**
   * Answers `request`, which arrived on `requestLink`, on its reply link; nothing when the link is gone (the client
   * stopped waiting). The status is a signed int, as Service Bus encodes it: uamqp refuses an unsigned one, and rhea
   * would write a positive number as uint.
   */
  reply(requestLink: Receiver, request: Message, statusKey: StatusKey, properties: Record<string, unknown>, body?: unknown): void {
    const sender = this.#replyLink(requestLink, request);
    if (!sender || !sender.is_open()) return;
    const status = properties[statusKey];
    const applicationProperties = typeof status === "number" ? { ...properties, [statusKey]: rhea.types.wrap_int(status) } : properties;
    const replyTo = typeof request.reply_to === "string" ? request.reply_to : undefined;
    sender.send({
      correlation_id: request.message_id,
      ...(replyTo ? { to: replyTo } : {}),
      application_properties: applicationProperties,
      body,
    });
  }

  /** By `reply_to` (the link's name or target address); without one, the link on the request's own node and session. */
  #replyLink(requestLink: Receiver, request: Message): Sender | undefined {
    const links = (this.#links.get(requestLink.connection) ?? []).filter((link) => link.is_open());
    const replyTo = typeof request.reply_to === "string" ? request.reply_to : undefined;
    if (replyTo !== undefined) return links.find((link) => link.name === replyTo || targetOf(link) === replyTo);
    const node = linkAddress((requestLink.target as { address?: string } | undefined)?.address ?? "");
    const onNode = links.filter((link) => linkAddress(link.source?.address ?? "") === node);
    return onNode.find((link) => link.session === requestLink.session) ?? onNode[0];
  }
}

function targetOf(link: Sender): string | undefined {
  return (link.target as { address?: string } | undefined)?.address;
}
