import { nodeTest } from "./reach.js";
import { isMoneyMovingCall } from "./stripe-call.js";

/** `firstReaching(..., moneyMovingCall)`: a Stripe call that charges, refunds or pays out. */
export const moneyMovingCall = nodeTest("money-moving", (analysis, node) => isMoneyMovingCall(analysis, node));
