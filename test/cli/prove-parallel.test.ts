// How many contenders `chargeguard prove` runs at once unless told: two and a half per core, since a contender
// mostly waits (scaled locks and leases, fault delays); at the 500 / 150 default, 5 at once on two cores answered in
// 0.85 of the time 4 at once took, side by side (BENCHMARKS.md).
import { availableParallelism } from "node:os";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { register } from "../../cli/commands/prove.js";

describe("chargeguard prove --parallel", () => {
  it("defaults to two and a half contenders per core, rounded up (5 on two cores, was 4)", () => {
    const program = new Command();
    register(program);
    const parallel = program.commands.find((command) => command.name() === "prove")?.options.find((option) => option.long === "--parallel");
    expect(parallel?.defaultValue).toBe(Math.min(32, Math.ceil(2.5 * availableParallelism())));
    expect(parallel?.defaultValue).toBeGreaterThanOrEqual(Math.min(32, 2 * availableParallelism() + 1));
  });
});
