// chargeguard/templates: the project scaffolder behind `chargeguard new consumer` and `npm create chargeguard`.
export * from "./names.js";
export * from "./scaffold.js";
export * from "./prompt-options.js";
export * from "./queue-budget.js";
