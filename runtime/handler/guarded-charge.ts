// Steps 3-5 of the flow (ARCHITECTURE.md, "How a billing event travels"): claim the record, call Stripe through the period's vault key in a Stripe slot,
// record the outcome (flows/guarded-flow-run.ts, the reconciler's run too); then the guard's outcome as the settlement table's.
import type { StepBoundary } from "./step-boundary.js";
import { runFlowGuarded } from "../flows/guarded-flow-run.js";
import { configurationReason } from "../flows/stripe-error-class.js";
import type { GuardOutcome } from "../guard/guarded-run.js";
import type { BillingOutcome } from "./settlement-policy.js";
import type { FlowResult } from "./flow-result.js";
import type { HandlerSettings } from "./handler-settings.js";
import type { PreparedBilling } from "./prepare-billing.js";

export async function guardedCharge(settings: HandlerSettings, prepared: PreparedBilling, step: StepBoundary): Promise<FlowResult> {
  const { event, billing, idempotencyKey, request } = prepared;
  const outcome = await runFlowGuarded(
    settings.flow,
    {
      scope: settings.scope,
      key: billing.key,
      payload: request as Record<string, unknown>,
      ...(billing.spend === undefined ? {} : { spend: billing.spend }),
      flow: settings.flow.name,
      idempotencyKey,
      owner: settings.owner,
    },
    {
      store: settings.store,
      keys: settings.keys,
      stripeFor: (apiKey) => settings.stripeFor(apiKey),
      expectedTotalCents: (period) => settings.expectedTotalCents(period),
      now: settings.now,
      stripeCall: settings.stripeCall,
      slot: settings.slot,
      ...(settings.governance === undefined ? {} : { governance: settings.governance }),
      // Without a step hook, no boundary to cross: nothing allocated or awaited for it per message.
      ...(settings.hook === undefined
        ? {}
        : {
            hooks: {
              afterClaim: () => step("afterClaim", event),
              afterWork: () => step("afterStripe", event),
              afterRecord: () => step("afterRecord", event),
            },
          }),
    },
  );
  return { outcome: billingOutcome(outcome), event, billing, idempotencyKey };
}

/** The guard's outcome as the settlement table's. */
export function billingOutcome(outcome: GuardOutcome): BillingOutcome {
  switch (outcome.kind) {
    case "done":
      return { kind: "charged", objectId: outcome.objectId };
    case "already-done":
      return outcome.objectId === null ? { kind: "already-billed" } : { kind: "already-billed", objectId: outcome.objectId };
    case "declined":
      return { kind: "declined" };
    case "busy":
      return { kind: "unknown", detail: "another consumer holds the billing lease", leaseHeldMs: outcome.retryAfterMs };
    case "mismatch":
      return { kind: "invalid", reason: "BillingRecordMismatch", detail: outcome.reason };
    case "cap-exceeded":
      return { kind: "spend-cap", detail: outcome.reason };
    case "invalid":
      if (outcome.reason === configurationReason) return { kind: "configuration", detail: outcome.detail };
      return { kind: "invalid", reason: outcome.reason === "InvalidGuardInput" ? "InvalidEvent" : outcome.reason, detail: outcome.detail };
    case "unknown":
      return { kind: "unknown", detail: outcome.detail, ...(outcome.fault === undefined ? {} : { fault: outcome.fault }) };
  }
}
