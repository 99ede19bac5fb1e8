// infra/config: the stack's configuration, from Pulumi.<stack>.yaml to the checked values the program deploys (the
// queues, the whole-service sections, each consumer's bounds, the network's address plan). Free of Pulumi imports, so
// `chargeguard sandbox`, `new` and `plan` read a stack without loading the Azure SDK. The rest of infra enters here.
export * from "./stack-config.js";
export * from "./load-stack-config.js";
export * from "./config-issues.js";
export * from "./service-config.js";
export * from "./service-schemas.js";
export * from "./consumer-app-config.js";
export * from "./network-plan.js";
