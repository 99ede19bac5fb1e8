import type { AddressInfo, Server, Socket } from "node:net";
import rhea, { type Connection, type Delivery, type EventContext, type Message, type Receiver, type Sender } from "rhea";
import {
  resolveAuthorizationRules,
  rootRuleName,
  unauthorized,
  unauthorizedCondition,
  verifyPutToken,
  type AccessRight,
  type AuthorizationRule,
  type AuthorizationRuleOptions,
  type Claim,
} from "./authorization.js";
import { DeadlineScheduler } from "./deadline-scheduler.js";
import type { Entity } from "./entity.js";
import { FaultBook, type FaultVerdict, type ServiceBusFaults, type SettleOperation } from "./faults.js";
import { handleManagement, rightForOperation, type ManagementReply } from "./management.js";
import { LinkConsumer, type SenderInternals } from "./link-consumer.js";
import type { Lock } from "./message-record.js";
import { resolveQueueOptions, type EmulatedQueueOptions } from "./options.js";
import { DispositionFlush } from "./disposition-flush.js";
import { EmulatedQueue, deadLetterSuffix, type Settlement } from "./queue.js";
import { snapshotOf, type QueueCounts, type QueueSnapshot } from "./snapshot.js";
import { unpackTransfer } from "./wire.js";

export interface ServiceBusEmulatorOptions {
  queues: Record<string, EmulatedQueueOptions>;
  /**
   * Shared access rules beside the root rule (RootManageSharedAccessKey: every right, namespace scope), enforced as
   * Azure enforces them: a receiver or settlement needs Listen, a send or a scheduled message Send.
   */
  authorizationRules?: Record<string, AuthorizationRuleOptions>;
  /** TCP port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Diagnostics (link errors, malformed requests); default silent. */
  log?: (line: string) => void;
}

export interface ServiceBusEmulator {
  /**
   * For `new ServiceBusClient(connectionString)`: plain AMQP on 127.0.0.1 (`UseDevelopmentEmulator=true`), signed
   * with the root rule (every right).
   */
  readonly connectionString: string;
  /** The connection string of one authorization rule (with `EntityPath` for a queue rule). Throws for an unknown rule. */
  connectionStringFor(ruleName: string): string;
  readonly port: number;
  readonly faults: ServiceBusFaults;
  /** Every message of a queue by state. Throws for an unknown queue. */
  inspect(queue: string): QueueSnapshot;
  /** The queue in numbers, cheap enough to poll: messages by where they are and deliveries so far. */
  counts(queue: string): QueueCounts;
  /** Adds a queue while running (e.g. a fresh queue per contender). Throws if it exists. */
  addQueue(name: string, options?: EmulatedQueueOptions): void;
  /** Closes every connection, the listener and every timer. */
  stop(): Promise<void>;
}

/** Maximum message size announced on send links: the Standard tier's 256 KB. */
const maxMessageSize = 262_144;
/** Unsettled deliveries a session may hold; rhea's default (2048) is low for a receiver holding locks. */
const sessionBufferSize = 8_192;

const lockLostError = {
  condition: "com.microsoft:message-lock-lost",
  description:
    "The lock supplied is invalid. Either the lock expired, or the message has already been removed from the queue.",
};
const serverBusyError = {
  condition: "com.microsoft:server-busy",
  description: "The server is busy. Please retry the operation later (injected fault).",
};

/** rhea delivery internals: the outcome the client asked for, and settling our side. */
interface DeliveryInternals {
  remote_settled: boolean;
  remote_state?: { error?: { condition?: string; description?: string; info?: Record<string, unknown> }; undeliverable_here?: boolean; message_annotations?: Record<string, unknown> };
  update(settled: boolean, state?: unknown): void;
}
const outcomes = rhea.message as unknown as {
  accepted(): { described(): unknown };
  rejected(fields: { error: { condition: string; description: string } }): { described(): unknown };
};

type ReceiveRoute = { queue: EmulatedQueue; entity: Entity; consumer: LinkConsumer };
type RequestRoute =
  | { kind: "cbs" }
  | { kind: "management"; queue: EmulatedQueue; entity: Entity; address: string }
  | { kind: "send"; queue: EmulatedQueue };

class ServiceBusBroker implements ServiceBusEmulator {
  readonly #queues = new Map<string, EmulatedQueue>();
  readonly #scheduler = new DeadlineScheduler();
  readonly #faultBook = new FaultBook();
  readonly #dispositions = new DispositionFlush();
  readonly #rules: ReadonlyMap<string, AuthorizationRule>;
  /** The claims each connection earned on $cbs (tokens are per connection, as on Azure). */
  readonly #claims = new WeakMap<Connection, Claim[]>();
  readonly #container = rhea.create_container({
    id: "chargeguard-servicebus-emulator",
    sender_options: { autosettle: false, treat_modified_as_released: false },
    receiver_options: { autoaccept: false },
  } as never);
  readonly #receiveLinks = new Map<Sender, ReceiveRoute>();
  readonly #requestLinks = new Map<Receiver, RequestRoute>();
  readonly #replyLinks = new WeakMap<Connection, Map<string, Sender>>();
  readonly #lockedDeliveries = new WeakMap<Delivery, { queue: EmulatedQueue; entity: Entity; lock: Lock }>();
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #log: (line: string) => void;
  #server: Server | undefined;
  #port = 0;
  #stopped = false;

  readonly faults: ServiceBusFaults = {
    inject: (rule) => this.#faultBook.inject(rule),
    expireLock: (queue, when) => {
      const target = this.#queue(queue);
      return target.expireLocks(target.main, (record) => !when || when(snapshotOf(record)));
    },
    dropConnections: () => this.#dropSockets("connection dropped by the emulator (injected fault)"),
    detachLinks: (queue) => this.#detachLinks(queue),
    clear: () => this.#faultBook.clear(),
  };

  constructor(options: ServiceBusEmulatorOptions) {
    this.#log = options.log ?? (() => {});
    this.#rules = resolveAuthorizationRules(options.authorizationRules);
    for (const [name, queueOptions] of Object.entries(options.queues)) this.addQueue(name, queueOptions);
    this.#wire();
  }

  get port(): number {
    return this.#port;
  }

  get connectionString(): string {
    return this.connectionStringFor(rootRuleName);
  }

  connectionStringFor(ruleName: string): string {
    const rule = this.#rules.get(ruleName);
    if (!rule) throw new Error(`No authorization rule named ${ruleName}; known: ${[...this.#rules.keys()].join(", ")}`);
    return (
      `Endpoint=sb://127.0.0.1:${this.#port};SharedAccessKeyName=${rule.name};SharedAccessKey=${rule.key};` +
      `UseDevelopmentEmulator=true${rule.queue === undefined ? "" : `;EntityPath=${rule.queue}`}`
    );
  }

  async listen(port: number): Promise<void> {
    const server = this.#container.listen({
      port,
      host: "127.0.0.1",
      session_buffer_size: sessionBufferSize,
      // rhea leaves Nagle on for accepted sockets: a small frame written while the last is unacknowledged would wait
      // for the client's delayed ACK (up to 40 ms on Linux) before it leaves, on every exchange.
      tcp_no_delay: true,
    } as never) as unknown as Server;
    this.#server = server;
    server.on("connection", (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve);
      server.once("error", reject);
    });
    this.#port = (server.address() as AddressInfo).port;
  }

  inspect(queue: string): QueueSnapshot {
    return this.#queue(queue).snapshot();
  }

  counts(queue: string): QueueCounts {
    return this.#queue(queue).counts();
  }

  addQueue(name: string, options: EmulatedQueueOptions = {}): void {
    if (this.#queues.has(name)) throw new Error(`Queue ${name} already exists`);
    this.#queues.set(name, new EmulatedQueue(name, resolveQueueOptions(name, options), this.#scheduler));
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#scheduler.stop();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#dropSockets("emulator stopped");
    const server = this.#server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    this.#receiveLinks.clear();
    this.#requestLinks.clear();
  }

  #queue(name: string): EmulatedQueue {
    const queue = this.#queues.get(name);
    if (!queue) throw new Error(`No queue named ${name}; known: ${[...this.#queues.keys()].join(", ") || "none"}`);
    return queue;
  }

  /** `queue`, `queue/$DeadLetterQueue` (any case), optionally with a `/$management` suffix already removed. */
  #entity(address: string): { queue: EmulatedQueue; entity: Entity } | undefined {
    const deadLetter = address.toLowerCase().endsWith(deadLetterSuffix.toLowerCase());
    const name = deadLetter ? address.slice(0, -deadLetterSuffix.length) : address;
    const queue = this.#queues.get(name);
    if (!queue) return undefined;
    return { queue, entity: deadLetter ? queue.deadLetter : queue.main };
  }

  /**
   * Cuts TCP connections the hard way, as a network failure would. Destroying with an error makes rhea see the
   * loss at once (it clears its heartbeat timers and reports `disconnected`, which forgets the links).
   */
  #dropSockets(reason: string): void {
    for (const socket of this.#sockets) socket.destroy(new Error(reason));
    this.#sockets.clear();
  }

  #later(delayMs: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (!this.#stopped) run();
    }, delayMs);
    this.#timers.add(timer);
  }

  #wire(): void {
    const container = this.#container;
    const mechanisms = container.sasl_server_mechanisms as unknown as Record<string, unknown> & {
      enable_anonymous(): void;
    };
    mechanisms.enable_anonymous();
    // The SDK may offer Service Bus's CBS mechanism; authentication happens over $cbs anyway.
    mechanisms.MSSBCBS = mechanisms.ANONYMOUS;

    container.on("sender_open", (context: EventContext) => this.#onReceiverAttach(context.sender as Sender));
    container.on("receiver_open", (context: EventContext) => this.#onSenderAttach(context.receiver as Receiver));
    container.on("message", (context: EventContext) => this.#onTransfer(context));
    const pumpLink = (context: EventContext): void => {
      const route = this.#receiveLinks.get(context.sender as Sender);
      if (route) route.queue.pump(route.entity);
    };
    container.on("sender_flow", pumpLink);
    container.on("sendable", pumpLink);
    container.on("accepted", (context: EventContext) => this.#onOutcome(context, () => ({ kind: "complete" })));
    container.on("released", (context: EventContext) => this.#onOutcome(context, () => ({ kind: "release" })));
    container.on("modified", (context: EventContext) =>
      this.#onOutcome(context, (state) => {
        const properties = state?.message_annotations;
        return state?.undeliverable_here
          ? { kind: "defer", ...(properties ? { properties } : {}) }
          : { kind: "abandon", ...(properties ? { properties } : {}) };
      }),
    );
    container.on("rejected", (context: EventContext) =>
      this.#onOutcome(context, (state) => {
        const { DeadLetterReason, DeadLetterErrorDescription, ...properties } = state?.error?.info ?? {};
        return {
          kind: "deadLetter",
          reason: typeof DeadLetterReason === "string" ? DeadLetterReason : state?.error?.condition,
          description:
            typeof DeadLetterErrorDescription === "string" ? DeadLetterErrorDescription : state?.error?.description,
          properties,
        };
      }),
    );
    container.on("sender_close", (context: EventContext) => this.#forgetReceiveLink(context.sender as Sender));
    container.on("receiver_close", (context: EventContext) => this.#requestLinks.delete(context.receiver as Receiver));
    const forgetConnection = (context: EventContext): void => {
      for (const sender of [...this.#receiveLinks.keys()]) {
        if (sender.connection === context.connection) this.#forgetReceiveLink(sender);
      }
      for (const receiver of [...this.#requestLinks.keys()]) {
        if (receiver.connection === context.connection) this.#requestLinks.delete(receiver);
      }
    };
    container.on("connection_close", forgetConnection);
    container.on("disconnected", forgetConnection);
    for (const event of ["error", "connection_error", "session_error", "sender_error", "receiver_error", "protocol_error"]) {
      container.on(event, (context: unknown) => {
        const error = (context as { error?: unknown } | undefined)?.error ?? context;
        this.#log(`servicebus emulator: ${event}: ${error instanceof Error ? error.message : JSON.stringify(error)}`);
      });
    }
  }

  /** The client attached a receiver: we are the sender. */
  #onReceiverAttach(sender: Sender): void {
    const source = sender.source?.address ?? "";
    const target = (sender.target as { address?: string } | undefined)?.address;
    sender.set_source({ address: source });
    if (target) sender.set_target({ address: target });
    const internals = sender as unknown as SenderInternals;
    if (source.endsWith("/$management") && !this.#authorize(sender, source, undefined)) return;
    if (source === "$cbs" || source.endsWith("/$management")) {
      // Replies are pre-settled, so reply links never accumulate unsettled deliveries.
      internals.local.attach.snd_settle_mode = 1;
      let links = this.#replyLinks.get(sender.connection);
      if (!links) this.#replyLinks.set(sender.connection, (links = new Map()));
      links.set(sender.name, sender);
      if (target) links.set(target, sender);
      return;
    }
    if (!this.#authorize(sender, source, "Listen")) return;
    const resolved = this.#entity(source);
    if (!resolved) {
      sender.close({ condition: "amqp:not-found", description: `The messaging entity '${source}' could not be found.` });
      return;
    }
    const remote = sender as unknown as { snd_settle_mode?: number; rcv_settle_mode?: number };
    const peekLock = remote.snd_settle_mode !== 1;
    internals.local.attach.snd_settle_mode = peekLock ? 0 : 1;
    internals.local.attach.rcv_settle_mode = peekLock ? 1 : 0;
    const consumer = new LinkConsumer(sender, peekLock, (delivery, lock) =>
      this.#lockedDeliveries.set(delivery, { queue: resolved.queue, entity: resolved.entity, lock }),
    );
    this.#receiveLinks.set(sender, { ...resolved, consumer });
    resolved.entity.addConsumer(consumer);
  }

  /** The client attached a sender: we are the receiver. */
  #onSenderAttach(receiver: Receiver): void {
    const target = (receiver.target as { address?: string } | undefined)?.address ?? "";
    const source = receiver.source?.address;
    receiver.set_target({ address: target });
    if (source) receiver.set_source({ address: source });
    if (target === "$cbs") {
      this.#requestLinks.set(receiver, { kind: "cbs" });
      return;
    }
    const management = target.endsWith("/$management");
    if (!this.#authorize(receiver, target, management ? undefined : "Send")) return;
    const resolved = this.#entity(management ? target.slice(0, -"/$management".length) : target);
    if (!resolved || (!management && resolved.entity.isDeadLetter)) {
      receiver.close({ condition: "amqp:not-found", description: `The messaging entity '${target}' could not be found.` });
      return;
    }
    (receiver as unknown as SenderInternals).local.attach.max_message_size = maxMessageSize;
    this.#requestLinks.set(
      receiver,
      management ? { kind: "management", ...resolved, address: target } : { kind: "send", queue: resolved.queue },
    );
  }

  /** CBS put-token: verify the SAS token and remember the claim for this connection; 401 when it does not verify. */
  #putToken(connection: Connection, request: Message): void {
    const properties = (request.application_properties ?? {}) as Record<string, unknown>;
    const verdict = verifyPutToken(this.#rules, { type: properties.type, audience: properties.name, token: request.body }, Date.now());
    if (!verdict.ok) {
      this.#log(`servicebus emulator: refused a token: ${verdict.description}`);
      this.#reply(connection, request, { "status-code": 401, "status-description": verdict.description });
      return;
    }
    const now = Date.now();
    this.#claims.set(connection, [...this.#claimsOf(connection).filter((claim) => claim.expiresAt > now), verdict.claim]);
    this.#reply(connection, request, { "status-code": 202, "status-description": "Accepted" });
  }

  #claimsOf(connection: Connection): Claim[] {
    return this.#claims.get(connection) ?? [];
  }

  /** Refuses (detaches) a link whose connection holds no claim with `right` on `address`, as Azure does. */
  #authorize(link: Sender | Receiver, address: string, right: AccessRight | undefined): boolean {
    const refused = unauthorized(this.#claimsOf(link.connection), address, right, Date.now());
    if (refused === undefined) return true;
    this.#log(`servicebus emulator: refused a link to ${address}: ${refused}`);
    link.close({ condition: unauthorizedCondition, description: refused });
    return false;
  }

  #forgetReceiveLink(sender: Sender): void {
    const route = this.#receiveLinks.get(sender);
    if (!route) return;
    this.#receiveLinks.delete(sender);
    // Messages it holds stay locked until their locks lapse, as on the real broker.
    route.entity.removeConsumer(route.consumer);
  }

  #onTransfer(context: EventContext): void {
    const receiver = context.receiver as Receiver;
    const delivery = context.delivery as Delivery;
    const route = this.#requestLinks.get(receiver);
    if (!route) {
      this.#reject(delivery, { condition: "amqp:not-found", description: "This link is not attached to an entity" });
      return;
    }
    try {
      if (route.kind === "send") {
        const format = (context as { format?: number }).format;
        this.#onSend(route.queue, unpackTransfer(context.message as Message, format), delivery);
        return;
      }
      this.#accept(delivery);
      const request = context.message as Message;
      if (route.kind === "cbs") {
        this.#putToken(receiver.connection, request);
        return;
      }
      const send = (reply: ManagementReply): void => {
        const properties: Record<string, unknown> = {
          statusCode: reply.statusCode,
          statusDescription: reply.statusDescription,
        };
        if (reply.errorCondition) properties.errorCondition = reply.errorCondition;
        this.#reply(receiver.connection, request, properties, reply.body);
      };
      const operation = (request.application_properties as Record<string, unknown> | undefined)?.operation;
      const refused = unauthorized(this.#claimsOf(receiver.connection), route.address, rightForOperation(operation), Date.now());
      if (refused !== undefined) {
        this.#log(`servicebus emulator: refused ${String(operation)}: ${refused}`);
        send({ statusCode: 401, statusDescription: refused, errorCondition: unauthorizedCondition });
        return;
      }
      const outcome = handleManagement(request, route.queue, route.entity, this.#faultBook);
      if (outcome.kind === "reply") send(outcome.reply);
      else if (outcome.kind === "later") this.#later(outcome.delayMs, () => send(outcome.run()));
    } catch (error) {
      const description = error instanceof Error ? error.message : String(error);
      this.#log(`servicebus emulator: refused a malformed request: ${description}`);
      if (route.kind === "management") {
        this.#reply(receiver.connection, context.message as Message, {
          statusCode: 400,
          statusDescription: description,
          errorCondition: "amqp:invalid-field",
        });
      } else if (route.kind === "send") {
        this.#reject(delivery, { condition: "amqp:decode-error", description });
      }
    }
  }

  #onSend(queue: EmulatedQueue, messages: Message[], delivery: Delivery): void {
    const verdict = this.#faultBook.check("send", queue.name, () =>
      messages.map((message) =>
        snapshotOf({
          sequenceNumber: 0,
          messageId: message.message_id === undefined ? "" : String(message.message_id),
          message,
          enqueuedAt: Date.now(),
          expiresAt: undefined,
          deliveries: 0,
          state: "active",
          deferred: false,
          scheduledFor: undefined,
          lock: undefined,
          deadLetterSource: undefined,
        }),
      ),
    );
    const enqueue = (): void => {
      for (const message of messages) queue.enqueue(message);
      queue.pump(queue.main);
      this.#accept(delivery);
    };
    this.#withVerdict(verdict, enqueue, () => this.#reject(delivery, serverBusyError));
  }

  #onOutcome(context: EventContext, settlement: (state: DeliveryInternals["remote_state"]) => Settlement): void {
    const delivery = context.delivery as Delivery;
    const held = this.#lockedDeliveries.get(delivery);
    if (!held) return;
    const internals = delivery as unknown as DeliveryInternals;
    const requested = settlement(internals.remote_state);
    const settle = (): void => {
      this.#lockedDeliveries.delete(delivery);
      const result = held.queue.settle(held.entity, held.lock.token, requested);
      this.#settleDelivery(internals, result === "lockLost" ? lockLostError : undefined);
    };
    if (requested.kind === "release") {
      settle();
      return;
    }
    const operation: SettleOperation = requested.kind;
    const verdict = this.#faultBook.check(operation, held.queue.name, () =>
      held.lock.record.lock === held.lock ? [snapshotOf(held.lock.record)] : [],
    );
    this.#withVerdict(verdict, settle, () => this.#settleDelivery(internals, serverBusyError));
  }

  #withVerdict(verdict: FaultVerdict | undefined, proceed: () => void, busy: () => void): void {
    if (!verdict) proceed();
    else if (verdict.action === "serverBusy") busy();
    else if (verdict.action === "delay") this.#later(verdict.delayMs, proceed);
    // "never": neither act nor answer.
  }

  /** Settles our side; the SDK waits for this. Success carries `accepted` and no error. */
  #settleDelivery(delivery: DeliveryInternals, error?: { condition: string; description: string }): void {
    this.#dispositions.dispose(error ? "other" : "accept", () => {
      delivery.update(true, error ? outcomes.rejected({ error }).described() : outcomes.accepted().described());
      // The client settles silently after us (rcv-settle-mode second); mark it so rhea frees the slot.
      delivery.remote_settled = true;
    });
  }

  /** A transfer taken (a send, a request): each outcome as the broker gives it, never merged with another. */
  #accept(delivery: Delivery): void {
    this.#dispositions.dispose("accept", () => delivery.accept());
  }

  #reject(delivery: Delivery, error: { condition: string; description: string }): void {
    this.#dispositions.dispose("other", () => delivery.reject(error));
  }

  #reply(connection: Connection, request: Message, properties: Record<string, unknown>, body?: unknown): void {
    const replyTo = typeof request.reply_to === "string" ? request.reply_to : undefined;
    const sender = replyTo ? this.#replyLinks.get(connection)?.get(replyTo) : undefined;
    if (!sender || !sender.is_open()) return;
    sender.send({ correlation_id: request.message_id, to: replyTo, application_properties: properties, body });
  }

  #detachLinks(queue: string | undefined): number {
    if (queue !== undefined) this.#queue(queue);
    let count = 0;
    const error = { condition: "amqp:link:detach-forced", description: "Link detached by the emulator (injected fault)." };
    for (const [sender, route] of [...this.#receiveLinks]) {
      if (queue !== undefined && route.queue.name !== queue) continue;
      this.#forgetReceiveLink(sender);
      sender.close(error);
      count++;
    }
    for (const [receiver, route] of [...this.#requestLinks]) {
      if (route.kind === "cbs" || (queue !== undefined && route.queue.name !== queue)) continue;
      this.#requestLinks.delete(receiver);
      receiver.close(error);
      count++;
    }
    return count;
  }
}

/** Starts an in-process Service Bus for the unmodified `@azure/service-bus` SDK on 127.0.0.1. */
export async function startServiceBusEmulator(options: ServiceBusEmulatorOptions): Promise<ServiceBusEmulator> {
  const broker = new ServiceBusBroker(options);
  await broker.listen(options.port ?? 0);
  return broker;
}

