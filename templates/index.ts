// chargeguard/templates: the project scaffolder behind `chargeguard new consumer` and `npm create chargeguard`.
// The scaffolder's currency rule is a copy of the runtime's (test/templates/currency-agreement.test.ts): the runtime's
// door owns the name, so this one does not export it.
export { packageNameProblem, queueNameProblem } from "./names.js";
export * from "./scaffold.js";
export { databaseChoices, type DatabaseChoice } from "./database-packages.js";
export { telemetryChoices, type TelemetryChoice } from "./telemetry-choice.js";
export * from "./prompt-options.js";
export * from "./queue-budget.js";
export * from "./dependency-source.js";
export {
  billingIdentities,
  billingIdentityChoices,
  billingIdentityHelp,
  billingIdentityOf,
  billingIdentityProblem,
  flowBillingIdentities,
  type BillingIdentity,
  type BillingIdentityChoice,
} from "./billing-identity.js";
