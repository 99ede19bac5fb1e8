import type { PaymentIntent } from "./objects.js";

/** The `error` member of a Stripe error response, as the SDK's `generateV1Error` reads it. */
export interface StripeErrorBody {
  type: "api_error" | "card_error" | "idempotency_error" | "invalid_request_error";
  message: string;
  code?: string;
  decline_code?: string;
  param?: string;
  charge?: string;
  payment_intent?: PaymentIntent;
}

/**
 * A Stripe error answer. `saved` says whether the idempotency layer keeps it for the key: Stripe saves results
 * only once the endpoint started executing, so parameter validation failures are not saved (a fixed retry
 * with the same key runs), while declines and state conflicts are.
 */
export class StripeFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: StripeErrorBody,
    readonly saved: boolean,
  ) {
    super(error.message);
  }
}

export function invalidRequest(message: string, details: { code?: string; param?: string } = {}): StripeFailure {
  return new StripeFailure(400, { type: "invalid_request_error", message, ...details }, false);
}

/** The parameters that name the object of the URL itself (`/v1/customers/:id`; PaymentIntents say `intent`). */
const pathParams: ReadonlySet<string> = new Set(["id", "intent"]);

/**
 * A missing object: Stripe answers 404 when the URL names it, 400 when a parameter of the request does
 * (`customer: "cus_missing"`, a refund of a missing charge), both `resource_missing` with the `param`.
 */
export function resourceMissing(resource: string, id: string, param: string): StripeFailure {
  return new StripeFailure(
    pathParams.has(param) ? 404 : 400,
    { type: "invalid_request_error", code: "resource_missing", message: `No such ${resource}: '${id}'`, param },
    false,
  );
}

/** The object is in a state the call cannot act on: decided while executing, so saved for the key. */
export function unexpectedState(code: string, message: string): StripeFailure {
  return new StripeFailure(400, { type: "invalid_request_error", code, message }, true);
}
