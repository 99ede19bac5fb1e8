// The directions ARCHITECTURE.md states ("Rooms"), as a table the lint rule room-directions.mjs reads: which room
// may import which. Tests are not rooms (they reach any file by path); scripts run the build's output.

/** The house's rooms and the rooms each may import (by relative path). */
export const houseRooms = {
  // The floor: the two error bases (ChargeguardError, ChargeguardSignal) every room of the kit builds its errors on.
  errors: [],
  tuning: ["errors"],
  // The sandbox stands for Azure and Stripe, which know nothing of us.
  sandbox: [],
  // The lint plugin ships alone.
  "eslint-plugin/src": [],
  "create-chargeguard": [],
  infra: ["tuning", "errors"],
  runtime: ["tuning", "errors"],
  templates: ["tuning", "errors"],
  examples: ["runtime"],
  prove: ["runtime", "sandbox", "examples", "tuning", "errors"],
  bench: ["runtime", "sandbox", "tuning", "errors"],
  cli: ["infra", "runtime", "sandbox", "templates", "prove", "tuning", "errors"],
};

/**
 * The runtime's rooms by floor, the ground first: a room imports only rooms on lower floors. Its door
 * (runtime/index.ts) stands above them all; nothing else stands loose at the runtime's root.
 */
export const runtimeFloors = [
  ["core"],
  ["sdk"],
  ["event", "servicebus"],
  ["stripe"],
  ["guard", "audit"],
  ["resilience"],
  ["flows"],
  ["handler"],
  ["telemetry"],
  ["consumer", "operator"],
];
