// How the seeds read an event of another flow: the body parsed and trusted, as readUsageEvent does for PaymentIntents.
// The shapes are the generated consumers' (src/event.ts of `chargeguard new consumer --flow X`), minus the checks.
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import type { ConsumerContext, UsageEvent } from "../../../runtime/index.js";
import type { ConsumerStep } from "../../../runtime/handler/index.js";

export interface ChargeEvent {
  customerId: string;
  stripeCustomerId: string;
  billingPeriod: string;
  amountCents: number;
  currency: string;
}

export interface InvoiceEvent {
  usageId: string;
  stripeCustomerId: string;
  day: string;
  currency: string;
  lines: { amountCents: number; description: string }[];
}

export interface MeterUsageEvent {
  usageId: string;
  stripeCustomerId: string;
  quantity: number;
  timestamp: number;
}

export function readEvent<T>(message: ServiceBusReceivedMessage): T {
  const body: unknown = message.body;
  if (typeof body === "string") return JSON.parse(body) as T;
  if (body instanceof Uint8Array) return JSON.parse(Buffer.from(body).toString("utf8")) as T;
  return body as T;
}

/** The harness's step hook takes whatever event the consumer parsed (the runtime passes its flow's event too). */
export function stepHook(context: ConsumerContext): (step: ConsumerStep, event: object) => Promise<void> {
  return async (step, event) => {
    await context.hook?.(step, event as UsageEvent);
  };
}
