export * from "./environment-key-provider.js";
export * from "./errors.js";
export * from "./key-provider.js";
export * from "./keybrake-key-provider.js";
