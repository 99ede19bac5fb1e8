// Steps 3-5 of the flow (ARCHITECTURE.md, "How a billing event travels"): claim the record, call Stripe through the period's vault key in a Stripe slot,
// record the outcome; then the guard's outcome as the settlement table's.
import type { StepBoundary } from "./step-boundary.js";
import { flowContext, stripeKeyWindowMs } from "../flows/flow-adapter.js";
import { configurationReason } from "../flows/stripe-error-class.js";
import { runGuarded, type GuardOutcome } from "../guard/guarded-run.js";
import { governedStripeCall } from "../resilience/governed-stripe-call.js";
import { PastPeriodKeyRefused, pastPeriodKeyReason, withPeriodKey } from "../stripe/vault/period-key.js";
import type { BillingOutcome } from "./settlement-policy.js";
import type { FlowResult } from "./flow-result.js";
import type { HandlerSettings } from "./handler-settings.js";
import type { PreparedBilling } from "./prepare-billing.js";

export async function guardedCharge(settings: HandlerSettings, prepared: PreparedBilling, step: StepBoundary): Promise<FlowResult> {
  const { event, billing, idempotencyKey, request } = prepared;
  const { flow, now } = settings;
  const period = billing.spend?.period ?? "unpriced";
  const outcome = await runGuarded(
    settings.store,
    {
      scope: settings.scope,
      key: billing.key,
      payload: request as Record<string, unknown>,
      ...(billing.spend === undefined ? {} : { spend: billing.spend }),
      flow: flow.name,
      idempotencyKey,
      owner: settings.owner,
    },
    async (context) => {
      // Governed (the fleet's budget, Stripe's breaker) when the consumer runs them; each call waits within the lease.
      const governance = settings.governance;
      const stripeCall = governance === undefined ? settings.stripeCall : governedStripeCall(settings.stripeCall, governance, context.leaseUntil?.getTime());
      return withPeriodKey(settings.keys, period, { expectedTotalCents: settings.expectedTotalCents(period) }, (apiKey) =>
        settings.slot(() => flow.execute(settings.stripeFor(apiKey), request, flowContext(context, now(), stripeKeyWindowMs, stripeCall))),
      );
    },
    {
      classify: (error) =>
        error instanceof PastPeriodKeyRefused ? { kind: "invalid", reason: pastPeriodKeyReason, detail: error.message } : flow.classify(error, request, idempotencyKey),
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
      now,
      // Every flow's only call before a recovery point, inside the window, is under the record's key (flow-adapter.ts).
      keyWindowMs: stripeKeyWindowMs,
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
