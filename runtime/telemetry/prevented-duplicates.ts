// A second charge stopped, counted by who stopped it (the guard's record or Stripe's idempotency cache) and why the
// duplicate delivery existed (the delivery's source; `other` outside a delivery).
import type { DeliveryScope } from "./delivery-scope.js";
import type { Instruments } from "./instruments.js";
import { attributeNames as attr, type PreventedBy } from "./metric-names.js";

export function countPrevented(instruments: Instruments, by: PreventedBy, scope: DeliveryScope | undefined): void {
  instruments.duplicatesPrevented.add(1, { [attr.preventedBy]: by, [attr.source]: scope?.source ?? "other" });
}
