// One error base, house-wide: every error the kit throws on purpose is a ChargeguardError (a refusal or an answer),
// in the runtime, the tuning, infra, the templates and the CLI alike, and what a room throws to itself and catches
// again is a ChargeguardSignal, so `instanceof ChargeguardError` means "the kit refused" wherever a caller meets it.
// The two bases stand on the floor every room may import (errors/). The sandbox stands for Azure and Stripe (its
// errors are theirs), the lint plugin ships alone, and templates/files is a team's generated code: none is covered.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CliError, UsageError } from "../../../cli/exit-codes.js";
import { ChargeguardError, ChargeguardSignal } from "../../../runtime/core/errors.js";
import { parseIsoDuration, replicaBounds, tuneQueue } from "../../../tuning/index.js";

const root = path.resolve(import.meta.dirname, "../../..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { exports: Record<string, unknown> };
const kitDoors = Object.keys(manifest.exports).filter((entry) => entry !== "./package.json" && entry !== "./sandbox");
const kitRooms = ["errors", "tuning", "infra", "runtime", "templates", "cli", "prove", "bench"];

type ErrorClass = abstract new (...args: never[]) => Error;

/** Every class a door of the kit exports that is an Error, by "door: name". */
async function exportedErrorClasses(): Promise<Map<string, ErrorClass>> {
  const classes = new Map<string, ErrorClass>();
  for (const door of kitDoors) {
    const exported = (await import(path.join(root, door.slice(2), "index.ts"))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exported)) {
      if (typeof value === "function" && (value === Error || value.prototype instanceof Error)) classes.set(`${door}: ${name}`, value as ErrorClass);
    }
  }
  return classes;
}

/** Each `class X extends <built-in error>` in the kit's rooms' sources (templates/files aside), as "file: X". */
function classesOnBuiltInErrors(): string[] {
  const found: string[] = [];
  for (const room of kitRooms) {
    const files = readdirSync(path.join(root, room), { recursive: true, encoding: "utf8" })
      .map((file) => path.join(room, file))
      .filter((file) => /\.(ts|mjs)$/.test(file) && !file.includes("node_modules") && !file.startsWith(path.join("templates", "files")));
    for (const file of files) {
      const source = readFileSync(path.join(root, file), "utf8");
      for (const match of source.matchAll(/class (\w+) extends (?:Error|TypeError|RangeError|AggregateError)\b/g)) found.push(`${file}: ${match[1]}`);
    }
  }
  return found;
}

/** What `run` threw, for a test that expects it to refuse. */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a refusal, nothing was thrown");
}

describe("the kit's errors", () => {
  it("exports every error class from every door under ChargeguardError, but the signals' own base", async () => {
    const classes = await exportedErrorClasses();
    expect([...classes.keys()]).toEqual(
      expect.arrayContaining([
        "./runtime: ChargeguardError",
        "./runtime: ConfigurationError",
        "./runtime: MeterEventUnverifiable",
        "./tuning: TuningError",
        "./tuning: DurationFormatError",
        "./tuning: ReplicaBudgetError",
        "./infra: StackConfigError",
        "./templates: ScaffoldError",
      ]),
    );
    const under = (base: typeof ChargeguardError | typeof ChargeguardSignal, value: { prototype: unknown }) => value === base || value.prototype instanceof base;
    // A signal the caller may meet (a start stopped by its own AbortSignal) is exported on the signals' base.
    const outside = [...classes].filter(([, value]) => !under(ChargeguardError, value) && !under(ChargeguardSignal, value)).map(([name]) => name);
    expect(outside).toEqual([]);
    expect([...classes.keys()]).toContain("./runtime/handler: ChargeguardSignal");
    expect(ChargeguardSignal.prototype instanceof ChargeguardError).toBe(false);
  });

  it("builds every error class of every room on one of the two bases: none straight on a built-in error but them", () => {
    expect(classesOnBuiltInErrors().sort()).toEqual([`errors${path.sep}index.ts: ChargeguardError`, `errors${path.sep}index.ts: ChargeguardSignal`]);
  });

  it("refuses as a ChargeguardError outside the runtime too: the tuning's refusals and the CLI's", () => {
    expect(thrownBy(() => parseIsoDuration("P5M"))).toBeInstanceOf(ChargeguardError);
    expect(thrownBy(() => tuneQueue({ stripe: { timeoutMs: 10_000, maxNetworkRetries: 2 }, processingMs: -1 }))).toMatchObject({ name: "TuningError" });
    expect(thrownBy(() => tuneQueue({ stripe: { timeoutMs: 10_000, maxNetworkRetries: 2 }, processingMs: -1 }))).toBeInstanceOf(ChargeguardError);
    const replicas = { maxConcurrentCalls: 0, maxConcurrentStripeCalls: 1, stripeRatePerSecond: 10, connectionBudget: 10, deliveryBudgetMs: 60_000 };
    expect(thrownBy(() => replicaBounds(replicas))).toMatchObject({ name: "ReplicaBudgetError" });
    expect(thrownBy(() => replicaBounds(replicas))).toBeInstanceOf(ChargeguardError);
    expect(new UsageError("--queue is required")).toBeInstanceOf(ChargeguardError);
    expect(new CliError("failed", 1)).toMatchObject({ name: "CliError", exitCode: 1 });
  });
});
