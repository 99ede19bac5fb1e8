import type { ModuleOrigin } from "../../utils/module-origin.js";

/** Why a value cannot identify a billing event: it is different the next time the same event is processed. */
export interface Instability {
  /** What the code reads, as the message names it: `lockToken`, `crypto.randomUUID()`. */
  source: string;
  /** Why; `{repeat}` stands for the repeat that applies where the code runs (see message-context). */
  why: string;
}

const PER_DELIVERY = "it changes on every redelivery of the same message";
const PER_MESSAGE = "it is new when a dead-lettered message is resubmitted or a producer re-sends the event";

const random = (source: string): Instability => ({ source, why: "it is random, so {repeat} gets a new key" });
const clock = (source: string): Instability => ({ source, why: "it reads the clock, so {repeat} gets a new key" });
const timeId = (source: string): Instability => ({ source, why: "it is a time-based id, new on every call" });

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

/** Calls whose result is random or a clock reading whatever their arguments: `[module, path, instability]`. */
const CALLS: ReadonlyArray<readonly [module: string, path: string, instability: Instability]> = [
  ["crypto", "randomUUID", random("crypto.randomUUID()")],
  ["crypto", "webcrypto.randomUUID", random("crypto.randomUUID()")],
  ["crypto", "randomBytes", random("crypto.randomBytes()")],
  ["crypto", "pseudoRandomBytes", random("crypto.randomBytes()")],
  ["crypto", "randomInt", random("crypto.randomInt()")],
  ["crypto", "getRandomValues", random("crypto.getRandomValues()")],
  ["crypto", "webcrypto.getRandomValues", random("crypto.getRandomValues()")],
  ["uuid", "v1", timeId("uuid v1()")],
  ["uuid", "v4", random("uuid v4()")],
  ["uuid", "v6", timeId("uuid v6()")],
  ["uuid", "v7", timeId("uuid v7()")],
  ["uuid/v1", "", timeId("uuid v1()")],
  ["uuid/v4", "", random("uuid v4()")],
  ["@lukeed/uuid", "", random("uuid v4()")],
  ["short-uuid", "generate", random("short-uuid generate()")],
  ["nanoid", "nanoid", random("nanoid()")],
  ["nanoid/non-secure", "nanoid", random("nanoid()")],
  ["nanoid/async", "nanoid", random("nanoid()")],
  ["ulid", "ulid", timeId("ulid()")],
  ["ulidx", "ulid", timeId("ulid()")],
  ["cuid", "", timeId("cuid()")],
  ["cuid", "slug", timeId("cuid()")],
  ["@paralleldrive/cuid2", "createId", random("cuid2 createId()")],
  ["<global>", "Math.random", random("Math.random()")],
  ["<global>", "Date.now", clock("Date.now()")],
  ["<global>", "Date", clock("Date()")],
  ["<global>", "performance.now", clock("performance.now()")],
  ["perf_hooks", "performance.now", clock("performance.now()")],
  ["<global>", "process.hrtime", clock("process.hrtime()")],
  ["<global>", "process.hrtime.bigint", clock("process.hrtime.bigint()")],
  ["<global>", "Temporal.Now.instant", clock("Temporal.Now")],
  ["<global>", "Temporal.Now.plainDateTimeISO", clock("Temporal.Now")],
  ["<global>", "Temporal.Now.zonedDateTimeISO", clock("Temporal.Now")],
  ["luxon", "DateTime.now", clock("DateTime.now()")],
];

/** Calls that read the clock only when given no argument: `dayjs()`, `moment()`, luxon's `DateTime.local()`. */
const CLOCK_WITHOUT_ARGUMENTS: ReadonlyArray<readonly [module: string, path: string, instability: Instability]> = [
  ["dayjs", "", clock("dayjs()")],
  ["moment", "", clock("moment()")],
  ["moment", "utc", clock("moment()")],
  ["luxon", "DateTime.local", clock("DateTime.local()")],
  ["luxon", "DateTime.utc", clock("DateTime.utc()")],
];

/** Factories that return a random or time-based id generator: `customAlphabet(...)`, `monotonicFactory()`, `init()`. */
const GENERATOR_FACTORIES: ReadonlyArray<readonly [module: string, path: string, instability: Instability]> = [
  ["nanoid", "customAlphabet", random("a nanoid customAlphabet() generator")],
  ["nanoid", "customRandom", random("a nanoid customRandom() generator")],
  ["nanoid/non-secure", "customAlphabet", random("a nanoid customAlphabet() generator")],
  ["ulid", "monotonicFactory", timeId("a ulid monotonicFactory() generator")],
  ["ulid", "factory", timeId("a ulid factory() generator")],
  ["ulidx", "monotonicFactory", timeId("a ulid monotonicFactory() generator")],
  ["@paralleldrive/cuid2", "init", random("a cuid2 init() generator")],
  ["hyperid", "", timeId("a hyperid() generator")],
];

const table = (rows: typeof CALLS) => new Map(rows.map(([module, path, instability]) => [`${module}:${path}`, instability]));
const CALL_TABLE = table(CALLS);
const NO_ARGUMENT_TABLE = table(CLOCK_WITHOUT_ARGUMENTS);
const GENERATOR_TABLE = table(GENERATOR_FACTORIES);

/** A call whose result is random or a clock reading, by what it calls (not by how the code spells it). */
export function unstableCall(origin: ModuleOrigin, argumentCount: number): Instability | null {
  const key = keyOf(origin);
  return CALL_TABLE.get(key) ?? (argumentCount === 0 ? NO_ARGUMENT_TABLE.get(key) : undefined) ?? null;
}

/** A call that makes an id generator (the generator's results are unstable). */
export function generatorFactory(origin: ModuleOrigin): Instability | null {
  return GENERATOR_TABLE.get(keyOf(origin)) ?? null;
}

/** moduleOrigin answers with one object per node, asked again for every key traced through it: its key, kept. */
const keys = new WeakMap<ModuleOrigin, string>();

function keyOf(origin: ModuleOrigin): string {
  let key = keys.get(origin);
  if (key === undefined) keys.set(origin, (key = `${origin.module}:${origin.path.join(".")}`));
  return key;
}

/** `new Date()` with no argument reads the clock; `new Date(event.occurredAt)` does not. */
export const NEW_DATE: Instability = clock("new Date()");
