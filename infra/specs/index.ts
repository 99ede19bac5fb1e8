// infra/specs: what the components deploy, as plain data the policy pack and the plan read too: each alert and the
// signal it watches, the roles and their scopes, the probes, the database roles, the locks, what a queue and an app
// record about themselves. No Pulumi resource is made here. The rest of infra enters here.
export * from "./access.js";
export * from "./alert-signals.js";
export * from "./alert-specs.js";
export * from "./billing-health-specs.js";
export * from "./consumer-probes.js";
export * from "./database-roles.js";
export * from "./locks.js";
export * from "./queue-metadata.js";
export * from "./replica-budget-tag.js";
export * from "./service-alert-specs.js";
export * from "./log-tables.js";
export * from "./secret-shapes.js";
