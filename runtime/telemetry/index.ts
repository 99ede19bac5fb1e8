// chargeguard/runtime/telemetry: OpenTelemetry metrics and traces (the API only: a no-op until the application
// registers an SDK).
export {
  BillingTelemetry,
  createBillingTelemetry,
  type BillingTelemetryOptions,
  type DeliveryParts,
  type StripeSlot,
} from "./billing-telemetry.js";
export {
  metricNames,
  attributeNames,
  billingOutcomes,
  preventedBy,
  duplicateSources,
  type BillingOutcomeName,
  type PreventedBy,
  type DuplicateSource,
} from "./metric-names.js";
export { semanticConventionsVersion } from "./semantic-conventions.js";
