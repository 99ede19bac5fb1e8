// Where a message's flow stopped: what its settlement needs to know.
import type { Billable } from "../flows/billing-event.js";
import type { BillingOutcome } from "./settlement-policy.js";

export interface FlowResult {
  outcome: BillingOutcome;
  event?: unknown;
  billing?: Billable<unknown>;
  idempotencyKey?: string;
}
