// Service Bus answers a wrong key and missing rights with the same error code (UnauthorizedAccess); only its text
// tells them apart. Azure's CBS says "InvalidSignature: The token has an invalid signature." for a key that does not
// match its rule (or a rule the namespace does not have), and "Unauthorized access. 'Listen' claim(s) are required to
// perform this operation." for a key or identity without the right. An operator fixes them in different places (the
// connection string vs. the rule's or the identity's rights), so each is named for what it is.
import { serviceBusErrorIn } from "../sdk/service-bus-error.js";
import { errorMessage } from "../core/describe-error.js";

export type ServiceBusRefusal =
  /** The credential itself was refused: a wrong key, a rule that is not there, an expired token, another queue's rule. */
  | { kind: "key"; detail: string }
  /** The credential is valid but lacks a right (Listen, Send, Manage) on the entity. */
  | { kind: "rights"; rights: string[]; detail: string }
  /** UnauthorizedAccess with a text neither of the above. */
  | { kind: "unauthorized"; detail: string };

const keyRefused = /InvalidSignature|invalid signature|ExpiredToken|InvalidAudience|SharedAccessKeyName|token.*(?:expired|not valid)/i;
const missingClaims = /'(\w+)' claim\(s\) (?:are|is) required/gi;

/** How Service Bus refused access in `error` (the SDK's error, or an AggregateError of its retries), or undefined. */
export function serviceBusRefusal(error: unknown): ServiceBusRefusal | undefined {
  const refused = serviceBusErrorIn(error, "UnauthorizedAccess");
  if (refused === undefined) return undefined;
  const detail = errorMessage(refused);
  const rights = [...new Set([...detail.matchAll(missingClaims)].map((match) => match[1] as string))];
  if (rights.length > 0) return { kind: "rights", rights, detail };
  if (keyRefused.test(detail)) return { kind: "key", detail };
  return { kind: "unauthorized", detail };
}

/** The namespace host of a connection string (`Endpoint=sb://<host>/`), or undefined. */
export function serviceBusHost(connectionString: string | undefined): string | undefined {
  return /Endpoint=sb:\/\/([^/;]+)/i.exec(connectionString ?? "")?.[1];
}

/** The sentence for a refused key: which rule, on which namespace (else `fallbackHost`), and where to take the right one. */
export function wrongKeyMessage(connectionString: string | undefined, fallbackHost: string, detail: string): string {
  const rule = /SharedAccessKeyName=([^;]+)/i.exec(connectionString ?? "")?.[1];
  const which = rule === undefined ? "the credentials" : `the connection string's key for rule ${rule}`;
  return (
    `Service Bus at ${serviceBusHost(connectionString) ?? fallbackHost} refused ${which}: a wrong key, not missing rights (${detail}): ` +
    "check SharedAccessKeyName and SharedAccessKey in the connection string (SERVICEBUS_CONNECTION_STRING; copy it again from the " +
    "namespace's or the queue's Shared access policies, or from sandbox.env)"
  );
}
