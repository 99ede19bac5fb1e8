// The Service Bus emulator: an AMQP 1.0 broker on rhea for the unmodified @azure/service-bus SDK. The broker here
// routes what the SDK does (attach links, send, receive, settle, $cbs and $management requests) to the queues;
// authorization, link bookkeeping, replies and answers to transfers are each in their own file.
import type { Server, Socket } from "node:net";
import rhea, { type Delivery, type EventContext, type Message, type Receiver, type Sender } from "rhea";
import { linkAddress, managementSuffix } from "./addresses.js";
import { resolveAuthorizationRules, rootRuleName, type AuthorizationRule, type AuthorizationRuleOptions } from "./authorization.js";
import { ConnectionClaims } from "./connection-claims.js";
import { wireContainer, type RemoteState } from "./container-events.js";
import { DeadlineScheduler } from "./deadline-scheduler.js";
import type { Entity } from "./entity.js";
import { FaultBook, type FaultVerdict, type ServiceBusFaults, type SettleOperation } from "./faults.js";
import { LinkConsumer, type SenderInternals } from "./link-consumer.js";
import { LinkRoutes } from "./link-routes.js";
import { listen, listenTls } from "./listeners.js";
import { makeLocalAuthority, type LocalAuthority } from "./local-authority.js";
import type { Lock } from "./message-record.js";
import { maxMessageSize, oversizeError } from "./message-size.js";
import { resolveQueueOptions, type EmulatedQueueOptions } from "./options.js";
import { EmulatedQueue, deadLetterSuffix, type Settlement } from "./queue.js";
import { ReplyLinks } from "./reply-links.js";
import { RequestDesk } from "./requests.js";
import { asksForSession, sessionReceiverRefused } from "./sessions.js";
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
  /**
   * An AMQPS listener beside the plain one, for clients that insist on TLS (Python's azure-servicebus 7.8 dials 5671
   * whatever the connection string says), with a certificate authority the emulator makes: `port` default 5671, or a
   * free port when 5671 is taken; `directory` receives the CA certificate (default: a new temporary directory,
   * removed by `stop()`).
   */
  tls?: boolean | { port?: number; directory?: string };
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
  /** The AMQPS listener when started with `tls`, else undefined. */
  readonly tls: TlsListener | undefined;
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

export interface TlsListener {
  readonly port: number;
  /** The sandbox CA's certificate (PEM): the file to trust (Python: `connection_verify=`). */
  readonly caFile: string;
  /** `Endpoint=sb://127.0.0.1:<tls port>/;...` signed with the root rule, without `UseDevelopmentEmulator`. */
  readonly connectionString: string;
  connectionStringFor(ruleName: string): string;
}

/** Maximum message size announced on send links: the Standard tier's 256 KB. */
const notFound = (address: string) => ({ condition: "amqp:not-found", description: `The messaging entity '${address}' could not be found.` });

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
  readonly #requests: RequestDesk;
  readonly #lockedDeliveries = new WeakMap<Delivery, { queue: EmulatedQueue; entity: Entity; lock: Lock }>();
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #log: (line: string) => void;
  readonly #servers: Server[] = [];
  #tls: { port: number; authority: LocalAuthority } | undefined;
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
    this.#requests = new RequestDesk({
      answers: this.#answers,
      replies: this.#replies,
      claims: this.#claims,
      faults: this.#faultBook,
      later: (delayMs, run) => this.#later(delayMs, run),
      log: this.#log,
    });
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

  get tls(): TlsListener | undefined {
    const tls = this.#tls;
    if (!tls) return undefined;
    const connectionStringFor = (ruleName: string) =>
      this.connectionStringFor(ruleName).replace(`sb://127.0.0.1:${this.#port}`, `sb://127.0.0.1:${tls.port}/`).replace(";UseDevelopmentEmulator=true", "");
    return { port: tls.port, caFile: tls.authority.caFile, connectionString: connectionStringFor(rootRuleName), connectionStringFor };
  }

  async listen(port: number, tls: ServiceBusEmulatorOptions["tls"]): Promise<void> {
    const plain = await listen(this.#container, { port, sockets: this.#sockets });
    this.#servers.push(plain.server);
    this.#port = plain.port;
    if (!tls) return;
    const settings = tls === true ? {} : tls;
    const authority = await makeLocalAuthority(settings.directory);
    this.#tls = { port: 0, authority };
    const secure = await listenTls(this.#container, { port: settings.port, tls: authority, sockets: this.#sockets });
    this.#servers.push(secure.server);
    this.#tls.port = secure.port;
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
    await Promise.all(this.#servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    await this.#tls?.authority.remove();
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
    const path = linkAddress(source);
    const management = path.endsWith(managementSuffix);
    if (management && !this.#claims.authorize(sender, path, undefined)) return;
    if (path === "$cbs" || management) {
      // Replies are pre-settled, so reply links never accumulate unsettled deliveries.
      internals.local.attach.snd_settle_mode = 1;
      return this.#replies.add(sender);
    }
    if (!this.#claims.authorize(sender, path, "Listen")) return;
    const resolved = this.#entity(path);
    if (!resolved) return void sender.close(notFound(source));
    if (this.#links.refusedReceive.has(resolved.queue.name)) return void sender.close(LinkRoutes.refusal);
    if (asksForSession(sender.source)) {
      // A refused link: an attach with no source, then the detach with the error (AMQP 1.0, 2.6.3).
      internals.local.attach.source = null;
      return void sender.close(sessionReceiverRefused);
    }
    const remote = sender as unknown as { snd_settle_mode?: number; rcv_settle_mode?: number };
    const peekLock = remote.snd_settle_mode !== 1;
    internals.local.attach.snd_settle_mode = peekLock ? 0 : 1;
    internals.local.attach.rcv_settle_mode = peekLock ? 1 : 0;
    const consumer = new LinkConsumer(sender, peekLock, (delivery, lock) =>
      this.#lockedDeliveries.set(delivery, { queue: resolved.queue, entity: resolved.entity, lock }),
    );
    this.#links.addReceiver(sender, { ...resolved, consumer });
    // Proton-C grants credit in the frames right after its attach; nothing is delivered before our attach is written
    // (LinkConsumer.capacity), so look again once it has gone out.
    setImmediate(() => resolved.queue.pump(resolved.entity));
  }

  /** The client attached a sender: we are the receiver. */
  #onSenderAttach(receiver: Receiver): void {
    const target = (receiver.target as { address?: string } | undefined)?.address ?? "";
    const source = receiver.source?.address;
    receiver.set_target({ address: target });
    if (source) receiver.set_source({ address: source });
    const path = linkAddress(target);
    if (path === "$cbs") {
      this.#links.request.set(receiver, { kind: "cbs" });
      return;
    }
    const management = path.endsWith(managementSuffix);
    if (!this.#claims.authorize(receiver, path, management ? undefined : "Send")) return;
    const resolved = this.#entity(management ? path.slice(0, -managementSuffix.length) : path);
    if (!resolved || (!management && resolved.entity.isDeadLetter)) return void receiver.close(notFound(target));
    (receiver as unknown as SenderInternals).local.attach.max_message_size = maxMessageSize;
    this.#links.request.set(
      receiver,
      management ? { kind: "management", ...resolved, address: path } : { kind: "send", queue: resolved.queue },
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
    if (route.kind !== "send") return this.#requests.take(receiver, delivery, context.message as Message, route);
    const format = (context as { format?: number }).format;
    const oversize = oversizeError(context.message as Message | Buffer, (delivery as unknown as { id: number }).id);
    if (oversize) return void this.#answers.reject(delivery, oversize);
    try {
      this.#onSend(route.queue, unpackTransfer(context.message as Message, format), delivery);
    } catch (error) {
      const description = error instanceof Error ? error.message : String(error);
      this.#log(`servicebus emulator: refused a malformed request: ${description}`);
      this.#answers.reject(delivery, { condition: "amqp:decode-error", description });
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
  try {
    await broker.listen(options.port ?? 0, options.tls);
  } catch (error) {
    await broker.stop();
    throw error;
  }
  return broker;
}

