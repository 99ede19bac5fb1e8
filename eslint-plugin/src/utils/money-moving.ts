import type { NodeTest } from "./reach.js";
import { isMoneyMovingCall } from "./stripe-call.js";

/** `firstReaching(..., moneyMovingCall)`: a Stripe call that charges, refunds or pays out. */
export const moneyMovingCall: NodeTest = {
  name: "money-moving",
  test: (analysis, node) => isMoneyMovingCall(analysis, node),
};
