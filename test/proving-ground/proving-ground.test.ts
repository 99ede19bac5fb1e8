// The short proving ground CI runs: 1,000 events, every fault, real emulators, real SDKs and real PGlite. The
// generated consumer must come out clean for two seeds; every broken example must show the failure its seed describes.
import { describe, expect, it } from "vitest";
import { brokenExamples } from "../../examples/broken/index.js";
import { faultNames } from "../../examples/proving-ground/faults.js";
import { runProvingGround } from "../../examples/proving-ground/proving-ground.js";
import type { ContenderResult } from "../../examples/proving-ground/results.js";

const events = 1_000;
const runTimeoutMs = 240_000;

function only(result: { contenders: ContenderResult[] }, name: string): ContenderResult {
  const found = result.contenders.find((contender) => contender.name === name);
  if (!found) throw new Error(`no result for ${name}`);
  return found;
}

describe("proving ground, 1,000 events, all faults", () => {
  for (const seed of [7, 1234]) {
    it(`the generated consumer charges once, loses nothing, stays under the cap and dead-letters every malformed event (seed ${seed})`, async () => {
      const result = await runProvingGround({ events, seed, only: ["generated-consumer"] });
      expect(result.faults).toEqual(faultNames);
      const { metrics, verdict, error } = only(result, "generated-consumer");
      expect(error).toBeUndefined();
      expect(metrics.events).toBe(events);
      expect(metrics.charges).toBeGreaterThan(events * 0.8);
      expect(metrics.duplicateCharges).toBe(0);
      expect(metrics.lostBillings).toBe(0);
      expect(metrics.overCapCents).toBe(0);
      expect(metrics.repeatedDeclines).toBe(0);
      expect(metrics.malformedCharged).toBe(0);
      expect(metrics.malformedDeadLettered).toBe(metrics.malformedEvents);
      expect(metrics.malformedEvents).toBeGreaterThan(0);
      expect(verdict).toMatch(/^PASS/);
    }, runTimeoutMs);
  }

  it("every broken example shows the failure its seed describes", async () => {
    const result = await runProvingGround({ events, seed: 7, only: brokenExamples.map((example) => example.name) });
    for (const example of brokenExamples) {
      if (example.triggeringFault !== "none") expect(result.faults).toContain(example.triggeringFault);
      const { metrics } = only(result, example.name);
      expect(metrics[example.expectedFailure], `${example.name}: ${example.expectedFailure}`).toBeGreaterThan(0);
    }
  }, runTimeoutMs * 2);
});
