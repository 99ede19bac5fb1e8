export * from "./classify-error.js";
export * from "./client.js";
export * from "./create-payment-intent.js";
export * from "./payment-intent-params.js";
