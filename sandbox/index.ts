// chargeguard/sandbox: local stand-ins for Azure Service Bus and Stripe, for the real SDKs, on 127.0.0.1.
// Not its systemClock: the name is the runtime's (chargeguard/runtime/handler), and a reader needs only one.
export { AdjustableClock, type SandboxClock } from "./clock.js";
export * from "./keybrake/index.js";
export * from "./servicebus/index.js";
export * from "./stripe/index.js";
export * from "./database/index.js";
export * from "./send-event.js";
