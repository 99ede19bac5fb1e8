// Each fault on its own, so a fault whose outcomes telemetry miscounts cannot hide behind another's: the generated
// consumer's own metrics (read through the SDK's in-memory reader) must count charged and declined as Stripe did.
// The runs are independent (their own emulators, databases and meter provider) and mostly wait on the harness's
// scaled-down locks and faults, so they run concurrently.
import { describe, expect, it } from "vitest";
import { faultNames } from "../../prove/faults.js";
import { runProvingGround } from "../../prove/proving-ground.js";

const runTimeoutMs = 240_000;

describe.concurrent("the generated consumer's telemetry, one fault at a time", () => {
  it.each(faultNames)("counts charged and declined as Stripe did under %s alone", async (fault) => {
    const result = await runProvingGround({ events: 150, seed: 11, faults: [fault], only: ["generated-consumer"] });
    const contender = result.contenders.find((candidate) => candidate.name === "generated-consumer");
    expect(contender?.error).toBeUndefined();
    const { metrics, telemetry } = contender!;
    expect(metrics.eventsCharged).toBeGreaterThan(0);
    expect(metrics.eventsDeclined).toBeGreaterThan(0);
    expect(telemetry?.outcomes.charged).toBe(metrics.eventsCharged);
    expect(telemetry?.outcomes.declined).toBe(metrics.eventsDeclined);
  }, runTimeoutMs);
});
