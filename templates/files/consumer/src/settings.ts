// The choices made when this project was generated (`chargeguard new consumer`). Yours to change.
export const settings = {
  /** The queue to consume when SERVICEBUS_QUEUE is not set. */
  queue: "__QUEUE__",
  /** "pglite": embedded PostgreSQL under ./.data when DATABASE_URL is not set; "postgres": DATABASE_URL required. */
  database: "__DATABASE__" as "pglite" | "postgres",
  /** "env": STRIPE_API_KEY (a restricted rk_ key); "keybrake": per-billing-period vault keys from a Keybrake proxy. */
  vault: "__VAULT__" as "env" | "keybrake",
  /** What identifies one billing (src/event.ts): "usage-event", its usageId; "customer-period", customer and month. */
  billingIdentity: "__BILLING_IDENTITY__" as "usage-event" | "customer-period",
  /** The service name telemetry reports when OTEL_SERVICE_NAME is not set. */
  serviceName: "__NAME__",
  /** Where the embedded database keeps its files. */
  dataDir: ".data/billing",
};
