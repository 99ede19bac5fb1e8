export { stripe } from "./stripe-client";
export * from "./request-options";
