// chargeguard/runtime: public entry point (filled in by its issue).
export * from "./stable-key.js";
export * from "./guard/types.js";
export * from "./guard/billing-guard.js";
export * from "./guard/errors.js";
export * from "./event-schema.js";
export * from "./settlement-policy.js";
export * from "./retry-chain.js";
export * from "./stripe/index.js";
export * from "./vault/index.js";
export * from "./billing-handler.js";
export * from "./consumer.js";
export * from "./dlq.js";
export * from "./reconcile.js";
