// The links clients attached and what each leads to: a receive link to an entity's consumer, a request link to
// $cbs, a queue's $management or a queue's send side. Forgotten when the link or its connection goes.
import type { Connection, Receiver, Sender } from "rhea";
import type { Entity } from "./entity.js";
import type { LinkConsumer } from "./link-consumer.js";
import type { EmulatedQueue } from "./queue.js";

export type ReceiveRoute = { queue: EmulatedQueue; entity: Entity; consumer: LinkConsumer };
export type RequestRoute =
  | { kind: "cbs" }
  | { kind: "management"; queue: EmulatedQueue; entity: Entity; address: string }
  | { kind: "send"; queue: EmulatedQueue };

export class LinkRoutes {
  /** The client's receivers: we are their sender. */
  readonly receive = new Map<Sender, ReceiveRoute>();
  /** The client's senders ($cbs, $management, sends): we are their receiver. */
  readonly request = new Map<Receiver, RequestRoute>();

  addReceiver(sender: Sender, route: ReceiveRoute): void {
    this.receive.set(sender, route);
    route.entity.addConsumer(route.consumer);
  }

  forgetReceiver(sender: Sender): void {
    const route = this.receive.get(sender);
    if (!route) return;
    this.receive.delete(sender);
    // Messages it holds stay locked until their locks lapse, as on the real broker.
    route.entity.removeConsumer(route.consumer);
  }

  forgetConnection(connection: Connection): void {
    for (const sender of [...this.receive.keys()]) {
      if (sender.connection === connection) this.forgetReceiver(sender);
    }
    for (const receiver of [...this.request.keys()]) {
      if (receiver.connection === connection) this.request.delete(receiver);
    }
  }

  /** Queues whose receive links are refused (faults.refuseReceiveLinks). */
  readonly refusedReceive = new Set<string>();
  static readonly refusal = { condition: "amqp:link:detach-forced", description: "Receive link refused by the emulator (injected fault)." };

  /** Detaches the queue's receive links and refuses new ones until the returned restore. */
  refuseReceive(queue: string): () => void {
    this.refusedReceive.add(queue);
    this.detach(queue, { receiveOnly: true });
    return () => this.refusedReceive.delete(queue);
  }

  /**
   * Detaches every link of `queue` (every queue when undefined) but $cbs, as a forced detach; returns how many.
   * `receiveOnly`: only the links clients receive on, not their send or management links.
   */
  detach(queue: string | undefined, options: { receiveOnly?: boolean } = {}): number {
    let count = 0;
    const error = { condition: "amqp:link:detach-forced", description: "Link detached by the emulator (injected fault)." };
    for (const [sender, route] of [...this.receive]) {
      if (queue !== undefined && route.queue.name !== queue) continue;
      this.forgetReceiver(sender);
      sender.close(error);
      count++;
    }
    for (const [receiver, route] of [...this.request]) {
      if (options.receiveOnly || route.kind === "cbs" || (queue !== undefined && route.queue.name !== queue)) continue;
      this.request.delete(receiver);
      receiver.close(error);
      count++;
    }
    return count;
  }

  clear(): void {
    this.receive.clear();
    this.request.clear();
  }
}
