// One error base: every error the runtime throws on purpose is a ChargeguardError (a refusal or an answer), and what
// it throws to itself and catches again is a ChargeguardSignal, so `instanceof ChargeguardError` means "the kit
// refused" wherever a caller meets it.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ChargeguardError, ChargeguardSignal } from "../../../runtime/core/errors.js";

const root = path.resolve(import.meta.dirname, "../../..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { exports: Record<string, unknown> };
const runtimeDoors = Object.keys(manifest.exports).filter((entry) => entry.startsWith("./runtime"));

type ErrorClass = abstract new (...args: never[]) => Error;

/** Every class a runtime door exports that is an Error, by name. */
async function exportedErrorClasses(): Promise<Map<string, ErrorClass>> {
  const classes = new Map<string, ErrorClass>();
  for (const door of runtimeDoors) {
    const exported = (await import(path.join(root, door.slice(2), "index.ts"))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exported)) {
      if (typeof value === "function" && (value === Error || value.prototype instanceof Error)) classes.set(name, value as ErrorClass);
    }
  }
  return classes;
}

/** Each `class X extends <built-in error>` in the runtime's sources, as "file: X". */
function classesOnBuiltInErrors(): string[] {
  const found: string[] = [];
  const files = readdirSync(path.join(root, "runtime"), { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"));
  for (const file of files) {
    const source = readFileSync(path.join(root, "runtime", file), "utf8");
    for (const match of source.matchAll(/class (\w+) extends (?:Error|TypeError|RangeError|AggregateError)\b/g)) found.push(`${file}: ${match[1]}`);
  }
  return found;
}

describe("the runtime's errors", () => {
  it("exports every error class under ChargeguardError, but the signals' own base", async () => {
    const classes = await exportedErrorClasses();
    expect([...classes.keys()]).toEqual(expect.arrayContaining(["ChargeguardError", "ConfigurationError", "MeterEventUnverifiable", "ConsumerStartError"]));
    const outside = [...classes].filter(([, value]) => value !== ChargeguardError && !(value.prototype instanceof ChargeguardError)).map(([name]) => name);
    expect(outside).toEqual(["ChargeguardSignal"]);
    expect(ChargeguardSignal.prototype instanceof ChargeguardError).toBe(false);
  });

  it("builds every error class on one of the two bases: none straight on a built-in error but them", () => {
    expect(classesOnBuiltInErrors().sort()).toEqual([`core${path.sep}errors.ts: ChargeguardError`, `core${path.sep}errors.ts: ChargeguardSignal`]);
  });
});
