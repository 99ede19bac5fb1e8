// Each fault on its own, so a fault whose outcomes telemetry miscounts cannot hide behind another's: the generated
// consumer's own metrics (read through the SDK's in-memory reader) must count charged and declined as Stripe did.
// The runs are independent (their own emulators, databases and meter provider) and mostly wait on the harness's
// scaled-down locks and faults, so they run concurrently, but a few at a time: they share this process's one thread,
// and thirteen proving grounds (fifty-two replicas) starting at once starved it until the replicas' start checks timed
// out ("cannot reach Service Bus"). Initialising each run's database had spread their starts out until the database
// template was cached between runs (prove/databases/template-cache.ts).
import pLimit from "p-limit";
import { describe, expect, it } from "vitest";
import { faultNames } from "../../prove/faults/faults.js";
import { runProvingGround } from "../../prove/run/proving-ground.js";

const runTimeoutMs = 240_000;
const runsAtOnce = pLimit(4);

describe.concurrent("the generated consumer's telemetry, one fault at a time", () => {
  it.each(faultNames)("counts charged and declined as Stripe did under %s alone", async (fault) => {
    const result = await runsAtOnce(() => runProvingGround({ events: 150, seed: 11, faults: [fault], only: ["generated-consumer"] }));
    const contender = result.contenders.find((candidate) => candidate.name === "generated-consumer");
    expect(contender?.error).toBeUndefined();
    const { metrics, telemetry } = contender!;
    expect(metrics.eventsCharged).toBeGreaterThan(0);
    expect(metrics.eventsDeclined).toBeGreaterThan(0);
    expect(telemetry?.outcomes.charged).toBe(metrics.eventsCharged);
    expect(telemetry?.outcomes.declined).toBe(metrics.eventsDeclined);
  }, runTimeoutMs);
});
