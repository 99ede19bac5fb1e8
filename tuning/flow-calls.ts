// How many Stripe round trips one billing makes at most, per flow: THE count the tuning sizes a message's hold by
// (one delivery budget per call, messageHoldMs), so the queue's lock and renewal, the app's grace period and replica
// bounds, the guard's lease and the runtime's start-up check all agree for a multi-call flow. The runtime's flow
// adapters take their `calls` from here, and a stack's queue names its flow, so infra never tunes an invoice queue
// as one call again. PURE.

/** The runtime's flows, by name (runtime/flows); the first is the default. */
export const flowNames = ["payment-intent", "charge", "invoice", "meter-event"] as const;
export type FlowName = (typeof flowNames)[number];

/** The most items one invoice billing may carry (Stripe caps an invoice at 250 lines); each is a call. */
export const maxInvoiceItems = 20;

/** Stripe calls one run of each flow makes at most. */
export const flowStripeCalls: Readonly<Record<FlowName, number>> = Object.freeze({
  "payment-intent": 1,
  charge: 1,
  // create + one per item + finalize + pay, sized for the largest invoice allowed.
  invoice: 3 + maxInvoiceItems,
  "meter-event": 1,
});

export function isFlowName(name: string): name is FlowName {
  return (flowNames as readonly string[]).includes(name);
}
