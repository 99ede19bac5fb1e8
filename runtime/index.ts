// chargeguard/runtime: public entry point (filled in by its issue).
export * from "./stable-key.js";
export * from "./guard/types.js";
