// What each party may do on a billing queue, as ONE definition: BillingQueue deploys it (Entra roles at queue
// scope, the dev SAS rules), and the proving ground and the generated project's tests run consumers with exactly
// these rights on the sandbox, so a consumer that needs more than it is deployed with fails a test.
// It lives in the tuning room, beside the numbers that must agree, because every room that needs it may import
// tuning: infra directly, prove and the generated project through chargeguard/runtime (prove may not import infra).

/** A shared access (SAS) rule's rights on Service Bus. Azure requires Listen and Send beside Manage. */
export type SasRight = "Listen" | "Send" | "Manage";

/** The Service Bus data-plane built-in roles, by the names Azure shows. */
export type ServiceBusDataRole =
  | "Azure Service Bus Data Receiver"
  | "Azure Service Bus Data Sender"
  | "Azure Service Bus Data Owner";

export interface QueueRights {
  /** The rights of the party's queue-level SAS rule (local auth on). */
  readonly sasRights: readonly SasRight[];
  /** The roles the party's Entra identity gets at queue scope (never at namespace scope). */
  readonly roles: readonly ServiceBusDataRole[];
  /** Why: what the party does that needs these rights. */
  readonly because: string;
}

/**
 * The consumer receives, settles and renews locks (Listen), and re-enqueues an unknown outcome as a scheduled
 * message on its own queue (a send: Send).
 */
export const consumerQueueRights: QueueRights = Object.freeze({
  sasRights: Object.freeze(["Listen", "Send"] as const),
  roles: Object.freeze(["Azure Service Bus Data Receiver", "Azure Service Bus Data Sender"] as const),
  because: "receives, settles and renews locks (Listen) and schedules its own retries on the queue (a send)",
});

/** The producer only sends billing events. */
export const producerQueueRights: QueueRights = Object.freeze({
  sasRights: Object.freeze(["Send"] as const),
  roles: Object.freeze(["Azure Service Bus Data Sender"] as const),
  because: "sends billing events",
});

/**
 * Operators run `chargeguard dlq peek` (peek the dead-letter subqueue: Listen) and `chargeguard dlq resubmit`
 * (receive and complete dead letters: Listen; send their replacements: Send). Nothing at namespace scope.
 */
export const operatorQueueRights: QueueRights = Object.freeze({
  sasRights: Object.freeze(["Listen", "Send"] as const),
  roles: Object.freeze(["Azure Service Bus Data Receiver", "Azure Service Bus Data Sender"] as const),
  because: "peeks, receives and completes dead letters (Listen) and resubmits them to the queue (Send)",
});
