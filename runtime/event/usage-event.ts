// The default billing event: what the proving ground's producer sends and the scaffolded consumer bills.

/** The business event on the queue (JSON body). Anything else is dead-lettered with a reason. */
export interface UsageEvent {
  customerId: string;
  stripeCustomerId: string;
  paymentMethodId: string;
  /** `YYYY-MM` */
  billingPeriod: string;
  /** integer, smallest currency unit, > 0 */
  amountCents: number;
  /** ISO 4217, lower case */
  currency: string;
}
