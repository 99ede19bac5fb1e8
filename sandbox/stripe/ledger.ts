import type { Dispute } from "./dispute-objects.js";
import type { Invoice, InvoiceItem } from "./invoice-objects.js";
import type { BillingMeterEvent, Charge, PaymentIntent, Refund } from "./objects.js";
import type { StripeStore } from "./store.js";

/** Groups succeeded charges that are the same business charge; `undefined` leaves a charge out. */
export type ChargeKey = (charge: Charge, paymentIntent: PaymentIntent | undefined) => string | undefined;

export interface DuplicateCharges {
  key: string;
  /** Two or more succeeded charges, oldest first. */
  charges: Charge[];
}

/** Customer plus the `billing_period` metadata of the PaymentIntent (or of a legacy charge). */
export const byCustomerAndBillingPeriod: ChargeKey = (charge, paymentIntent) => {
  const period = paymentIntent?.metadata["billing_period"] ?? charge.metadata["billing_period"];
  return charge.customer !== null && period !== undefined ? `${charge.customer} ${period}` : undefined;
};

/**
 * What reached the emulated Stripe account, for tests to count: every PaymentIntent and charge ever created
 * (declined and refunded ones included), oldest first. Returns copies, so a test cannot change the account.
 */
export class StripeLedger {
  constructor(private readonly store: StripeStore) {}

  paymentIntents(customer?: string): PaymentIntent[] {
    return structuredClone(this.store.paymentIntents.all(customer));
  }

  charges(customer?: string): Charge[] {
    this.store.runDue();
    return structuredClone(this.store.charges.all(customer));
  }

  invoices(customer?: string): Invoice[] {
    return structuredClone(this.store.invoices.all(customer));
  }

  invoiceItems(customer?: string): InvoiceItem[] {
    return structuredClone(this.store.invoiceItems.all(customer));
  }

  /** Every meter event accepted (duplicates refused by identifier are not here), oldest first. */
  meterEvents(): BillingMeterEvent[] {
    return structuredClone(this.store.meterEvents);
  }

  refunds(): Refund[] {
    return structuredClone(this.store.refunds.all());
  }

  /** Every dispute opened so far (one due now opens first), oldest first. */
  disputes(): Dispute[] {
    this.store.runDue();
    return structuredClone(this.store.disputes.all());
  }

  /** Charges with status `succeeded` (captured or only authorised, refunded or not), per customer. */
  succeededChargesByCustomer(): Map<string, Charge[]> {
    const result = new Map<string, Charge[]>();
    for (const charge of this.store.charges.all()) {
      if (charge.status !== "succeeded" || charge.customer === null) continue;
      const list = result.get(charge.customer);
      if (list) list.push(structuredClone(charge));
      else result.set(charge.customer, [structuredClone(charge)]);
    }
    return result;
  }

  /** Sets of two or more succeeded charges that share a key: each set beyond its first charge is money taken twice. */
  duplicateCharges(keyOf: ChargeKey = byCustomerAndBillingPeriod): DuplicateCharges[] {
    const groups = new Map<string, Charge[]>();
    for (const charge of this.store.charges.all()) {
      if (charge.status !== "succeeded") continue;
      const intent = charge.payment_intent === null ? undefined : this.store.paymentIntents.get(charge.payment_intent);
      const key = keyOf(charge, intent);
      if (key === undefined) continue;
      const group = groups.get(key);
      if (group) group.push(charge);
      else groups.set(key, [charge]);
    }
    return [...groups]
      .filter(([, charges]) => charges.length > 1)
      .map(([key, charges]) => ({ key, charges: structuredClone(charges) }));
  }
}
