// $cbs and $management requests, served as Service Bus serves them: the request's transfer is accepted first, and the
// reply leaves only once that acceptance has gone out. uamqp (Python's azure-servicebus) waits for the request's
// settlement before it reads a reply, and fails a reply that comes first ("did not receive send confirmation"); rhea
// writes a tick's outgoing transfers before its dispositions, so the reply waits for the tick after the acceptance.
import type { Connection, Delivery, Message, Receiver } from "rhea";
import { unauthorizedCondition } from "./authorization.js";
import type { ConnectionClaims } from "./connection-claims.js";
import type { FaultBook } from "./faults.js";
import type { RequestRoute } from "./link-routes.js";
import { handleManagement, rightForOperation, type ManagementReply } from "./management.js";
import type { ReplyLinks } from "./reply-links.js";
import type { TransferAnswers } from "./transfer-answers.js";

export interface RequestDeskParts {
  answers: TransferAnswers;
  replies: ReplyLinks;
  claims: ConnectionClaims;
  faults: FaultBook;
  /** Runs `run` after `delayMs` unless the emulator stopped meanwhile. */
  later(delayMs: number, run: () => void): void;
  log(line: string): void;
}

type RequestKind = Extract<RequestRoute, { kind: "cbs" | "management" }>;

export class RequestDesk {
  constructor(private readonly parts: RequestDeskParts) {}

  /** Accepts the request's transfer, then serves it; a malformed request is answered 400 on $management. */
  take(receiver: Receiver, delivery: Delivery, request: Message, route: RequestKind): void {
    this.parts.answers.accept(delivery, () => {
      if (receiver.is_closed()) return;
      try {
        if (route.kind === "cbs") this.#putToken(receiver, request);
        else this.#management(receiver, request, route);
      } catch (error) {
        const description = error instanceof Error ? error.message : String(error);
        this.parts.log(`servicebus emulator: refused a malformed request: ${description}`);
        if (route.kind !== "management") return;
        this.#send(receiver, request, { statusCode: 400, statusDescription: description, errorCondition: "amqp:invalid-field" });
      }
    });
  }

  #putToken(receiver: Receiver, request: Message): void {
    const connection: Connection = receiver.connection;
    this.parts.replies.reply(receiver, request, "status-code", this.parts.claims.putToken(connection, request));
  }

  /** A $management request, answered once its rights are checked (401 otherwise). */
  #management(receiver: Receiver, request: Message, route: Extract<RequestRoute, { kind: "management" }>): void {
    const operation = (request.application_properties as Record<string, unknown> | undefined)?.operation;
    const refused = this.parts.claims.refusal(receiver.connection, route.address, rightForOperation(operation));
    if (refused !== undefined) {
      this.parts.log(`servicebus emulator: refused ${String(operation)}: ${refused}`);
      this.#send(receiver, request, { statusCode: 401, statusDescription: refused, errorCondition: unauthorizedCondition });
      return;
    }
    const outcome = handleManagement(request, route.queue, route.entity, this.parts.faults);
    if (outcome.kind === "reply") this.#send(receiver, request, outcome.reply);
    else if (outcome.kind === "later") this.parts.later(outcome.delayMs, () => this.#send(receiver, request, outcome.run()));
  }

  #send(receiver: Receiver, request: Message, reply: ManagementReply): void {
    const properties: Record<string, unknown> = { statusCode: reply.statusCode, statusDescription: reply.statusDescription };
    if (reply.errorCondition) properties.errorCondition = reply.errorCondition;
    this.parts.replies.reply(receiver, request, "statusCode", properties, reply.body);
  }
}
