// Which failures are a dependency being throttled or down, rather than anything about the event: those never count
// as an attempt and never dead-letter an event (README, "Degraded dependencies").
import type Stripe from "stripe";
import { ChargeguardSignal } from "../core/errors.js";
import { isStripeErrorOfType, stripeErrorIn } from "../stripe/stripe-error.js";
import { vaultErrorCodes } from "../stripe/vault/vault-error-codes.js";

export type Dependency = "stripe" | "database" | "vault";
export type DegradationCause = "throttled" | "outage";

export interface DependencyFault {
  dependency: Dependency;
  cause: DegradationCause;
  /** For 429s: which limiter (`Stripe-Rate-Limited-Reason`), when the answer said. */
  limiter?: string;
}

/**
 * Thrown instead of calling a dependency that is known to be down (its breaker is open) or whose throttling outlasted
 * the delivery's lease: nothing was sent, so nothing can have happened.
 */
export class DependencyUnavailableError extends ChargeguardSignal {
  override readonly name = "DependencyUnavailableError";
  /**
   * True only where it is proven that no request left for Stripe (a breaker open, no budget before the lease ends,
   * a 429 Stripe did not execute, the vault giving no key). A failure after a request went (a timeout, a dropped
   * answer) may have been executed: false, and the guard keeps the record's history.
   */
  readonly nothingSent: boolean;
  constructor(
    readonly fault: DependencyFault,
    message: string,
    options?: { cause?: unknown; nothingSent?: boolean },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.nothingSent = options?.nothingSent ?? false;
  }
}

/** A Stripe failure as throttled or outage; undefined for answers about the request (decline, invalid, 409...). */
export function stripeFault(error: unknown): DependencyFault | undefined {
  if (error instanceof DependencyUnavailableError) return error.fault;
  const answer = stripeErrorIn(error);
  return answer && stripeAnswerFault(answer);
}

/** Stripe's (or a vault's) answer as throttled or outage. */
function stripeAnswerFault(error: Stripe.errors.StripeError): DependencyFault | undefined {
  // A vault's refusal in Stripe's shape (its cap answers 429): an answer about this request, never Stripe throttling.
  if (Object.values<string | undefined>(vaultErrorCodes).includes(error.code)) return undefined;
  if (isStripeErrorOfType(error, "StripeRateLimitError") || error.statusCode === 429) {
    const limiter = error.headers?.["stripe-rate-limited-reason"];
    // Another request holds the object (lock_timeout, Stripe's resource-specific limiter): about that object only.
    if (error.code === "lock_timeout" || limiter === "resource-specific") return { dependency: "stripe", cause: "throttled", limiter: "object" };
    return { dependency: "stripe", cause: "throttled", ...(typeof limiter === "string" && limiter !== "" ? { limiter } : {}) };
  }
  if (isStripeErrorOfType(error, "StripeConnectionError")) return { dependency: "stripe", cause: "outage" };
  if (error.statusCode !== undefined && error.statusCode >= 500) return { dependency: "stripe", cause: "outage" };
  return undefined;
}

const connectionCodes = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
/** SQLSTATE classes of a server that is going away or not taking work: 08 connection, 57 operator intervention (statement_timeout, shutdown, cannot connect now), 53 resources. */
const outageStates = /^(08|57|53)/;

/** A database failure that is the server or the path being down, not the statement. */
export function databaseFault(error: unknown): DependencyFault | undefined {
  if (error instanceof DependencyUnavailableError) return error.fault;
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (connectionCodes.has(code) || outageStates.test(code))) return { dependency: "database", cause: "outage" };
    // pg's own wording for a connection it gave up on or lost, and for its query_timeout.
    if (/timeout exceeded when trying to connect|Connection terminated|Query read timeout|connection timeout|Client has encountered a connection error/i.test(current.message)) {
      return { dependency: "database", cause: "outage" };
    }
  }
  return undefined;
}
