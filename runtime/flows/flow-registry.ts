// The flows by name: what a guard record's `flow` names, and what the reconciler runs for it when the consumer's own
// flows are not given (a generated consumer hands its own, `chargeguard reconcile --flows <module>`).
import { chargeFlow } from "./charge-flow.js";
import type { FlowAdapter } from "./flow-adapter.js";
import { invoiceFlow } from "./invoice-flow.js";
import { meterEventFlow } from "./meter-event-flow.js";
import { paymentIntentFlow } from "./payment-intent-flow.js";

export type FlowRegistry = Readonly<Record<string, FlowAdapter<never>>>;

export const builtInFlows: FlowRegistry = {
  "payment-intent": paymentIntentFlow as FlowAdapter<never>,
  charge: chargeFlow as FlowAdapter<never>,
  invoice: invoiceFlow as FlowAdapter<never>,
  "meter-event": meterEventFlow as FlowAdapter<never>,
};
