// The links a connection receives its $cbs and $management replies on, found by the request's `reply_to`.
import type { Connection, Message, Sender } from "rhea";

export class ReplyLinks {
  readonly #links = new WeakMap<Connection, Map<string, Sender>>();

  /** Remembers a reply link by its name and, when the client gave one, by its target address. */
  add(sender: Sender, target: string | undefined): void {
    let links = this.#links.get(sender.connection);
    if (!links) this.#links.set(sender.connection, (links = new Map()));
    links.set(sender.name, sender);
    if (target) links.set(target, sender);
  }

  /** Answers `request` on its reply link; nothing when the link is gone (the client stopped waiting). */
  reply(connection: Connection, request: Message, properties: Record<string, unknown>, body?: unknown): void {
    const replyTo = typeof request.reply_to === "string" ? request.reply_to : undefined;
    const sender = replyTo ? this.#links.get(connection)?.get(replyTo) : undefined;
    if (!sender || !sender.is_open()) return;
    sender.send({ correlation_id: request.message_id, to: replyTo, application_properties: properties, body });
  }
}
