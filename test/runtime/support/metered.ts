// A Stripe customer with a meter of their own, and a team's usage event billed as meter events on it (no spend: the
// period is "unpriced"), as the meter-event flow's end-to-end tests use them.
import { z } from "zod";
import type Stripe from "stripe";
import type { BillingEventDefinition } from "../../../runtime/flows/billing-event.js";
import type { MeterEventRequest } from "../../../runtime/flows/meter-event-flow.js";

export type MeteredUsage = { usageId: string; calls: number; at: number };

export interface Metered {
  customer: Stripe.Customer;
  meter: Stripe.Billing.Meter;
  event: BillingEventDefinition<MeteredUsage, MeterEventRequest>;
}

export async function meteredCustomer(admin: Stripe): Promise<Metered> {
  const customer = await admin.customers.create({ name: "metered" });
  const meter = await admin.billing.meters.create({ display_name: "calls", event_name: `calls_${customer.id}`, default_aggregation: { formula: "sum" } });
  return {
    customer,
    meter,
    event: {
      schema: z.strictObject({ usageId: z.string().min(1), calls: z.number().int().positive(), at: z.number().int() }),
      toBilling: (event) => ({
        key: { usageId: event.usageId },
        request: () => ({ eventName: meter.event_name, stripeCustomerId: customer.id, value: event.calls, timestamp: event.at }),
      }),
    },
  };
}
