// The short proving ground CI runs: 1,000 events, every fault, real emulators, real SDKs and real PGlite. The
// generated consumer must come out clean for two seeds; every broken example must show the failure its seed describes.
// The broken examples run through the built bin (npm test builds first), two at a time in worker threads, as `npm
// start` runs them: the JSON contract, the workers and the database template they share are exercised too. The other
// flows (charge, invoice, meter-event) each have a generated consumer and a broken example: a smaller run of those.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { brokenExamples } from "../../examples/broken/index.js";
import { faultNames } from "../../prove/faults/faults.js";
import { runProvingGround } from "../../prove/run/proving-ground.js";
import type { ContenderResult, ProvingGroundJson } from "../../prove/report/results.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(root, "dist/cli/index.js");

const events = 1_000;
const runTimeoutMs = 240_000;
/** The per-flow contenders: a few hundred events each keep this run short. */
const flowEvents = 150;

async function proveJson(args: string[], timeoutMs: number): Promise<{ code: number; result: ProvingGroundJson }> {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` first (npm test does)`);
  const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
    execFile(process.execPath, [bin, "prove", ...args, "--json"], { cwd: root, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, out) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out });
    });
  });
  return { code, result: JSON.parse(stdout) as ProvingGroundJson };
}

function only(result: { contenders: ContenderResult[] }, name: string): ContenderResult {
  const found = result.contenders.find((contender) => contender.name === name);
  if (!found) throw new Error(`no result for ${name}`);
  return found;
}

// The runs are independent (own emulators, databases, ports) and mostly wait on the scaled-down faults: concurrent.
describe.concurrent("proving ground, 1,000 events, all faults", () => {
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
      // Its own metrics (read through the SDK's in-memory reader) agree with what the harness counted at Stripe.
      const { telemetry } = only(result, "generated-consumer");
      expect(telemetry?.outcomes.charged).toBe(metrics.eventsCharged);
      expect(telemetry?.outcomes.declined ?? 0).toBe(metrics.eventsDeclined);
      expect(Object.values(telemetry?.duplicatesPrevented ?? {}).reduce((sum, n) => sum + n, 0)).toBeGreaterThan(0);
      // chargeguard audit, reading only the account, finds it clean.
      expect(only(result, "generated-consumer").accountAudit).toMatchObject({ duplicates: 0, groundTruth: 0, agrees: true });
      // The faults that hit it, counted where they struck: the planned events met (seed 7 measured 7 to 13 of each of
      // the nine per-event faults) and every dead letter (the malformed events at least) resubmitted 25 h later. Its
      // lock covers a delivery, so it renews none: renew-busy hits it 0 times, which the report now says.
      const hits = only(result, "generated-consumer").faultHits ?? {};
      const perEvent = ["slow-stripe", "commit-drop", "stripe-500", "stripe-409", "kill-after-claim", "kill-after-stripe", "kill-after-record", "kill-before-complete", "scale-in"] as const;
      expect(perEvent.reduce((sum, fault) => sum + (hits[fault] ?? 0), 0)).toBeGreaterThan(20);
      expect(hits["dlq-resubmit"]).toBeGreaterThanOrEqual(metrics.malformedEvents);
    }, runTimeoutMs);
  }

  it("every PaymentIntent broken example shows the failure its seed describes (built bin, --parallel 2, --json)", async () => {
    const paymentIntentExamples = brokenExamples.filter((example) => example.flow === undefined);
    const names = paymentIntentExamples.map((example) => example.name);
    const { code, result } = await proveJson(["--events", String(events), "--seed", "7", "--only", names.join(","), "--parallel", "2"], runTimeoutMs * 2);
    // No generated consumer among the contenders: nothing can fail the run's exit code.
    expect(code).toBe(0);
    expect(result).toMatchObject({ seed: 7, events, faults: faultNames, passed: true });
    expect(result.contenders.map((contender) => contender.name)).toEqual(names);
    for (const example of paymentIntentExamples) {
      expect(result.contenders.find((candidate) => candidate.name === example.name)?.flow).toBe("payment-intent");
      if (example.triggeringFault !== "none") expect(result.faults).toContain(example.triggeringFault);
      const contender = result.contenders.find((candidate) => candidate.name === example.name);
      expect(contender?.kind).toBe("example");
      expect(contender?.verdict, example.name).toMatch(/^FAIL/);
      // chargeguard audit, reading only the account, counts the duplicates the ledger's ground truth counts.
      expect(contender?.accountAudit?.agrees, example.name).toBe(true);
      // Their malformed counts are reported, not judged: the seeds' consumers parse naively, and one that charges an
      // event missing a field it never reads is one more of their failures, not the one this test is about.
      expect(contender?.malformed.events, example.name).toBeGreaterThan(0);
      expect(contender?.paymentIntents, example.name).toBeGreaterThan(0);
      expect(contender?.[example.expectedFailure], `${example.name}: ${example.expectedFailure}`).toBeGreaterThan(0);
    }
  }, runTimeoutMs * 2);
});

describe.concurrent(`proving ground per flow, ${flowEvents} events, all faults`, () => {
  it("each flow's generated consumer passes (0 duplicates, 0 lost, 0 over the cap, counted at Stripe) and its broken example fails as it says (built bin, --json)", async () => {
    const flowExamples = brokenExamples.filter((example) => example.flow !== undefined);
    const flows = ["charge", "invoice", "meter-event"] as const;
    const names = [...flows.map((flow) => `generated-consumer-${flow}`), ...flowExamples.map((example) => example.name)];
    const { code, result } = await proveJson(["--events", String(flowEvents), "--seed", "7", "--only", names.join(","), "--parallel", "2"], runTimeoutMs * 2);
    expect(code).toBe(0);
    expect(result).toMatchObject({ seed: 7, events: flowEvents, faults: faultNames, passed: true });
    for (const flow of flows) {
      const generated = result.contenders.find((candidate) => candidate.name === `generated-consumer-${flow}`);
      expect(generated).toMatchObject({ kind: "generated", flow, duplicateCharges: 0, lostBillings: 0, overCapCents: 0, repeatedDeclines: 0 });
      expect(generated?.verdict, flow).toMatch(/^PASS/);
      // Billed at Stripe (paid charges, paid invoices, meter events), not merely reported by the consumer.
      expect(generated?.eventsCharged, flow).toBeGreaterThan(flowEvents * 0.8);
      expect(generated?.malformed.deadLettered, flow).toBe(generated?.malformed.events);
      // Its own telemetry (guard_records, not billing_records) counts what Stripe billed and declined.
      expect(generated?.telemetry.outcomes.charged, flow).toBe(generated?.eventsCharged);
      expect(generated?.telemetry.outcomes.declined ?? 0, flow).toBe(generated?.eventsDeclined);
      // Charges and invoices bill a default card, so declines reach Stripe; a meter event takes no card.
      if (flow === "meter-event") expect(generated?.eventsDeclined).toBe(0);
      else expect(generated?.eventsDeclined, flow).toBeGreaterThan(0);
      expect(flowExamples.some((example) => example.flow === flow), `a broken example for ${flow}`).toBe(true);
    }
    for (const example of flowExamples) {
      const contender = result.contenders.find((candidate) => candidate.name === example.name);
      expect(contender).toMatchObject({ kind: "example", flow: example.flow });
      expect(contender?.verdict, example.name).toMatch(/^FAIL/);
      expect(contender?.[example.expectedFailure], `${example.name}: ${example.expectedFailure}`).toBeGreaterThan(0);
    }
  }, runTimeoutMs * 2);

  it("runs the other flows' contenders on their own, smaller workload (flowEvents), the PaymentIntent ones on events", async () => {
    const result = await runProvingGround({ events: 60, flowEvents: 30, seed: 5, faults: [], only: ["no-idempotency-key", "generated-consumer-meter-event"] });
    expect(result.events).toBe(60);
    expect(only(result, "no-idempotency-key").metrics.events).toBe(60);
    const meter = only(result, "generated-consumer-meter-event");
    expect(meter.metrics.events).toBe(30);
    expect(meter.verdict).toMatch(/^PASS/);
  }, runTimeoutMs);
});
