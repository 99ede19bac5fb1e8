import type { ModuleOrigin } from "./module-origin.js";

/** Why a value cannot identify a billing event: it is different the next time the same event is processed. */
export interface Instability {
  /** What the code reads, as the message names it: `lockToken`, `crypto.randomUUID()`. */
  source: string;
  why: string;
}

const PER_DELIVERY = "it changes on every redelivery of the same message";
const PER_MESSAGE = "it is new when a dead-lettered message is resubmitted or a producer re-sends the event";
const RANDOM = "it is random, so a redelivered message gets a new key";
const CLOCK = "it reads the clock, so a redelivered message gets a new key";

/** Service Bus message metadata that differs between two deliveries of one billing event. */
export const UNSTABLE_MESSAGE_PROPERTIES: ReadonlyMap<string, string> = new Map([
  ["lockToken", PER_DELIVERY],
  ["deliveryCount", PER_DELIVERY],
  ["lockedUntilUtc", PER_DELIVERY],
  ["messageId", PER_MESSAGE],
  ["sequenceNumber", PER_MESSAGE],
  ["enqueuedTimeUtc", PER_MESSAGE],
]);

/** Message fields that carry the producer's business data: they survive redelivery and resubmission. */
export const STABLE_MESSAGE_PARTS: ReadonlySet<string> = new Set(["body", "applicationProperties"]);

const CALLS: ReadonlyArray<readonly [module: string, path: string, label: string, why: string]> = [
  ["crypto", "randomUUID", "crypto.randomUUID()", RANDOM],
  ["crypto", "randomBytes", "crypto.randomBytes()", RANDOM],
  ["crypto", "randomInt", "crypto.randomInt()", RANDOM],
  ["crypto", "getRandomValues", "crypto.getRandomValues()", RANDOM],
  ["uuid", "v1", "uuid v1()", "it is a time-based UUID, new on every call"],
  ["uuid", "v4", "uuid v4()", RANDOM],
  ["uuid", "v6", "uuid v6()", "it is a time-based UUID, new on every call"],
  ["uuid", "v7", "uuid v7()", "it is a time-based UUID, new on every call"],
  ["nanoid", "nanoid", "nanoid()", RANDOM],
  ["<global>", "Math.random", "Math.random()", RANDOM],
  ["<global>", "Date.now", "Date.now()", CLOCK],
  ["<global>", "Date", "Date()", CLOCK],
  ["<global>", "performance.now", "performance.now()", CLOCK],
  ["perf_hooks", "performance.now", "performance.now()", CLOCK],
  ["<global>", "process.hrtime", "process.hrtime()", CLOCK],
  ["<global>", "process.hrtime.bigint", "process.hrtime.bigint()", CLOCK],
];

const CALL_TABLE = new Map(CALLS.map(([module, path, source, why]) => [`${module}:${path}`, { source, why }]));

/** A call whose result is random or a clock reading, by what it calls (not by how the code spells it). */
export function unstableCall(origin: ModuleOrigin): Instability | null {
  return CALL_TABLE.get(`${origin.module}:${origin.path.join(".")}`) ?? null;
}

/** `new Date()` with no argument reads the clock; `new Date(event.occurredAt)` does not. */
export const NEW_DATE: Instability = { source: "new Date()", why: CLOCK };

/** `customAlphabet(...)` from nanoid returns a random generator. */
export const NANOID_GENERATOR: Instability = { source: "a nanoid customAlphabet() generator", why: RANDOM };
