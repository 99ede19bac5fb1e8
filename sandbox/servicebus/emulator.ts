// The Service Bus emulator: an AMQP 1.0 broker on rhea for the unmodified @azure/service-bus SDK. The broker here
// routes what the SDK does (attach links, send, receive, settle, $cbs and $management requests) to the queues;
// authorization, link bookkeeping, replies and answers to transfers are each in their own file.
import type { AddressInfo, Server, Socket } from "node:net";
import rhea, { type Delivery, type EventContext, type Message, type Receiver, type Sender } from "rhea";
import { resolveAuthorizationRules, rootRuleName, unauthorizedCondition, type AuthorizationRule, type AuthorizationRuleOptions } from "./authorization.js";
import { ConnectionClaims } from "./connection-claims.js";
import { wireContainer, type RemoteState } from "./container-events.js";
import { DeadlineScheduler } from "./deadline-scheduler.js";
import type { Entity } from "./entity.js";
import { FaultBook, type FaultVerdict, type ServiceBusFaults, type SettleOperation } from "./faults.js";
import { LinkConsumer, type SenderInternals } from "./link-consumer.js";
import { LinkRoutes, type RequestRoute } from "./link-routes.js";
import { handleManagement, rightForOperation, type ManagementReply } from "./management.js";
import type { Lock } from "./message-record.js";
import { resolveQueueOptions, type EmulatedQueueOptions } from "./options.js";
import { EmulatedQueue, deadLetterSuffix, type Settlement } from "./queue.js";
import { ReplyLinks } from "./reply-links.js";
import { snapshotOf, type QueueCounts, type QueueSnapshot } from "./snapshot.js";
import { deadLetterNotAllowed, lockLostError, serverBusyError, TransferAnswers, type DeliveryInternals } from "./transfer-answers.js";
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

class ServiceBusBroker implements ServiceBusEmulator {
  readonly #queues = new Map<string, EmulatedQueue>();
  readonly #scheduler = new DeadlineScheduler();
  readonly #faultBook = new FaultBook();
  readonly #answers = new TransferAnswers();
  readonly #rules: ReadonlyMap<string, AuthorizationRule>;
  readonly #claims: ConnectionClaims;
  readonly #container = rhea.create_container({
    id: "chargeguard-servicebus-emulator",
    sender_options: { autosettle: false, treat_modified_as_released: false },
    receiver_options: { autoaccept: false },
  } as never);
  readonly #links = new LinkRoutes();
  readonly #replies = new ReplyLinks();
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
    detachLinks: (queue) => {
      if (queue !== undefined) this.#queue(queue);
      return this.#links.detach(queue);
    },
    refuseReceiveLinks: (queue) => this.#links.refuseReceive(this.#queue(queue).name),
    clear: () => {
      this.#faultBook.clear();
      this.#links.refusedReceive.clear();
    },
  };

  constructor(options: ServiceBusEmulatorOptions) {
    this.#log = options.log ?? (() => {});
    this.#rules = resolveAuthorizationRules(options.authorizationRules);
    this.#claims = new ConnectionClaims(this.#rules, this.#log);
    for (const [name, queueOptions] of Object.entries(options.queues)) this.addQueue(name, queueOptions);
    wireContainer(this.#container, {
      receiverAttached: (sender) => this.#onReceiverAttach(sender),
      senderAttached: (receiver) => this.#onSenderAttach(receiver),
      transfer: (context) => this.#onTransfer(context),
      outcome: (context, settlement) => this.#onOutcome(context, settlement),
      pump: (sender) => {
        const route = this.#links.receive.get(sender);
        if (route) route.queue.pump(route.entity);
      },
      receiverClosed: (sender) => this.#links.forgetReceiver(sender),
      senderClosed: (receiver) => this.#links.request.delete(receiver),
      connectionGone: (connection) => this.#links.forgetConnection(connection),
      log: this.#log,
    });
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
    this.#links.clear();
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

  /** The client attached a receiver: we are the sender. */
  #onReceiverAttach(sender: Sender): void {
    const source = sender.source?.address ?? "";
    const target = (sender.target as { address?: string } | undefined)?.address;
    sender.set_source({ address: source });
    if (target) sender.set_target({ address: target });
    const internals = sender as unknown as SenderInternals;
    if (source.endsWith("/$management") && !this.#claims.authorize(sender, source, undefined)) return;
    if (source === "$cbs" || source.endsWith("/$management")) {
      // Replies are pre-settled, so reply links never accumulate unsettled deliveries.
      internals.local.attach.snd_settle_mode = 1;
      this.#replies.add(sender, target);
      return;
    }
    if (!this.#claims.authorize(sender, source, "Listen")) return;
    const resolved = this.#entity(source);
    if (!resolved) {
      sender.close({ condition: "amqp:not-found", description: `The messaging entity '${source}' could not be found.` });
      return;
    }
    if (this.#links.refusedReceive.has(resolved.queue.name)) return void sender.close(LinkRoutes.refusal);
    const remote = sender as unknown as { snd_settle_mode?: number; rcv_settle_mode?: number };
    const peekLock = remote.snd_settle_mode !== 1;
    internals.local.attach.snd_settle_mode = peekLock ? 0 : 1;
    internals.local.attach.rcv_settle_mode = peekLock ? 1 : 0;
    const consumer = new LinkConsumer(sender, peekLock, (delivery, lock) =>
      this.#lockedDeliveries.set(delivery, { queue: resolved.queue, entity: resolved.entity, lock }),
    );
    this.#links.addReceiver(sender, { ...resolved, consumer });
  }

  /** The client attached a sender: we are the receiver. */
  #onSenderAttach(receiver: Receiver): void {
    const target = (receiver.target as { address?: string } | undefined)?.address ?? "";
    const source = receiver.source?.address;
    receiver.set_target({ address: target });
    if (source) receiver.set_source({ address: source });
    if (target === "$cbs") {
      this.#links.request.set(receiver, { kind: "cbs" });
      return;
    }
    const management = target.endsWith("/$management");
    if (!this.#claims.authorize(receiver, target, management ? undefined : "Send")) return;
    const resolved = this.#entity(management ? target.slice(0, -"/$management".length) : target);
    if (!resolved || (!management && resolved.entity.isDeadLetter)) {
      receiver.close({ condition: "amqp:not-found", description: `The messaging entity '${target}' could not be found.` });
      return;
    }
    (receiver as unknown as SenderInternals).local.attach.max_message_size = maxMessageSize;
    this.#links.request.set(
      receiver,
      management ? { kind: "management", ...resolved, address: target } : { kind: "send", queue: resolved.queue },
    );
  }

  #onTransfer(context: EventContext): void {
    const receiver = context.receiver as Receiver;
    const delivery = context.delivery as Delivery;
    const route = this.#links.request.get(receiver);
    if (!route) {
      this.#answers.reject(delivery, { condition: "amqp:not-found", description: "This link is not attached to an entity" });
      return;
    }
    try {
      if (route.kind === "send") {
        const format = (context as { format?: number }).format;
        this.#onSend(route.queue, unpackTransfer(context.message as Message, format), delivery);
        return;
      }
      this.#answers.accept(delivery);
      const request = context.message as Message;
      if (route.kind === "cbs") {
        this.#replies.reply(receiver.connection, request, this.#claims.putToken(receiver.connection, request));
        return;
      }
      this.#onManagementRequest(receiver, request, route);
    } catch (error) {
      const description = error instanceof Error ? error.message : String(error);
      this.#log(`servicebus emulator: refused a malformed request: ${description}`);
      if (route.kind === "management") {
        this.#replies.reply(receiver.connection, context.message as Message, {
          statusCode: 400,
          statusDescription: description,
          errorCondition: "amqp:invalid-field",
        });
      } else if (route.kind === "send") {
        this.#answers.reject(delivery, { condition: "amqp:decode-error", description });
      }
    }
  }

  /** A $management request, answered on the connection's reply link once its rights are checked (401 otherwise). */
  #onManagementRequest(receiver: Receiver, request: Message, route: Extract<RequestRoute, { kind: "management" }>): void {
    const send = (reply: ManagementReply): void => {
      const properties: Record<string, unknown> = {
        statusCode: reply.statusCode,
        statusDescription: reply.statusDescription,
      };
      if (reply.errorCondition) properties.errorCondition = reply.errorCondition;
      this.#replies.reply(receiver.connection, request, properties, reply.body);
    };
    const operation = (request.application_properties as Record<string, unknown> | undefined)?.operation;
    const refused = this.#claims.refusal(receiver.connection, route.address, rightForOperation(operation));
    if (refused !== undefined) {
      this.#log(`servicebus emulator: refused ${String(operation)}: ${refused}`);
      send({ statusCode: 401, statusDescription: refused, errorCondition: unauthorizedCondition });
      return;
    }
    const outcome = handleManagement(request, route.queue, route.entity, this.#faultBook);
    if (outcome.kind === "reply") send(outcome.reply);
    else if (outcome.kind === "later") this.#later(outcome.delayMs, () => send(outcome.run()));
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
      this.#answers.accept(delivery);
    };
    this.#withVerdict(verdict, enqueue, () => this.#answers.reject(delivery, serverBusyError));
  }

  #onOutcome(context: EventContext, settlement: (state: RemoteState) => Settlement): void {
    const delivery = context.delivery as Delivery;
    const held = this.#lockedDeliveries.get(delivery);
    if (!held) return;
    const internals = delivery as unknown as DeliveryInternals;
    const requested = settlement(internals.remote_state);
    const settle = (): void => {
      this.#lockedDeliveries.delete(delivery);
      const result = held.queue.settle(held.entity, held.lock.token, requested);
      this.#answers.settle(internals, result === "settled" ? undefined : result === "lockLost" ? lockLostError : deadLetterNotAllowed);
    };
    if (requested.kind === "release") {
      settle();
      return;
    }
    const operation: SettleOperation = requested.kind;
    const verdict = this.#faultBook.check(operation, held.queue.name, () =>
      held.lock.record.lock === held.lock ? [snapshotOf(held.lock.record)] : [],
    );
    this.#withVerdict(verdict, settle, () => this.#answers.settle(internals, serverBusyError));
  }

  #withVerdict(verdict: FaultVerdict | undefined, proceed: () => void, busy: () => void): void {
    if (!verdict) proceed();
    else if (verdict.action === "serverBusy") busy();
    else if (verdict.action === "delay") this.#later(verdict.delayMs, proceed);
    // "never": neither act nor answer.
  }
}

/** Starts an in-process Service Bus for the unmodified `@azure/service-bus` SDK on 127.0.0.1. */
export async function startServiceBusEmulator(options: ServiceBusEmulatorOptions): Promise<ServiceBusEmulator> {
  const broker = new ServiceBusBroker(options);
  await broker.listen(options.port ?? 0);
  return broker;
}

