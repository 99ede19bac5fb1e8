// billing_records (BillingGuard) as a store for the guard primitive: the PaymentIntent consumer's identity is
// (customerId, billingPeriod), its one Stripe object the PaymentIntent, its fingerprint BillingGuard's own
// (amount, currency, key, request), so existing rows, the reconciler and the group-committed claims keep working.
import type { BillingGuard } from "./billing-guard.js";
import { BillingStateError, GuardInputError } from "../errors.js";
import type { GuardStore, StoreClaim, StoreClaimRequest } from "./guard-store.js";
import type { Lease } from "./types.js";

export type BillingRecordPort = Pick<BillingGuard, "claim" | "markCharged" | "markDeclined" | "releaseLease"> &
  Partial<Pick<BillingGuard, "forgetRefused">>;

export function billingRecordStore(port: BillingRecordPort): GuardStore<Lease> {
  return {
    async claim(request: StoreClaimRequest): Promise<StoreClaim<Lease>> {
      const { customerId, billingPeriod } = request.key;
      if (typeof customerId !== "string" || typeof billingPeriod !== "string") {
        throw new GuardInputError("billing_records needs key { customerId, billingPeriod } (strings)");
      }
      if (!request.spend) throw new GuardInputError("billing_records needs a spend (amount and currency)");
      const claim = await port.claim(
        {
          customerId,
          billingPeriod,
          amountCents: request.spend.amount,
          currency: request.spend.currency,
          idempotencyKey: request.idempotencyKey,
          request: { ...request.payload },
        },
        request.owner,
      );
      switch (claim.status) {
        case "claimed":
          return { status: "claimed", lease: claim.lease, attempt: claim.record.attempts, steps: {}, createdAt: claim.record.createdAt };
        case "already-billed":
          return { status: "already-done", objectId: claim.record.paymentIntentId };
        case "declined":
          return { status: "declined", reason: claim.record.declineReason };
        case "busy":
          return { status: "busy", retryAfterMs: claim.retryAfterMs };
        case "mismatch":
          return { status: "mismatch", reason: claim.reason };
        case "cap-exceeded":
          return { status: "cap-exceeded", reason: claim.reason, capCents: claim.capCents, reservedCents: claim.reservedCents };
      }
    },
    saveStep() {
      return Promise.reject(new BillingStateError("billing_records keeps one Stripe object per billing: multi-step flows use Guard (guard_records)"));
    },
    markDone: (lease, outcome) => port.markCharged(lease, { paymentIntentId: outcome.objectId }),
    markDeclined: (lease, outcome) =>
      port.markDeclined(lease, { reason: outcome.reason, ...(outcome.objectId === undefined ? {} : { paymentIntentId: outcome.objectId }) }),
    release: (lease) => port.releaseLease(lease),
    ...(port.forgetRefused === undefined ? {} : { forget: (lease: Lease) => port.forgetRefused!(lease) }),
  };
}
