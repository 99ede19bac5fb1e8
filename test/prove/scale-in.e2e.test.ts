// The scale-in fault: a replica stopped the way Container Apps stops one (SIGTERM, then SIGKILL after the grace
// period) while a charge of its is in flight at Stripe. Short runs of the real proving ground (emulators, SDKs, PGlite);
// the run with the default grace period goes through the built bin (npm test builds first), as `npm start` runs it.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { planFaults } from "../../prove/faults/faults.js";
import { runProvingGround } from "../../prove/run/proving-ground.js";
import type { ContenderResult, ProvingGroundJson } from "../../prove/report/results.js";
import { harnessDeliveryBudgetMs, harnessSettings } from "../../prove/run/settings.js";
import { generateWorkload } from "../../prove/workload/workload.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(root, "dist/cli/index.js");
const events = 200;
/** Two scale-ins at 200 events. */
const seed = 3;
const runTimeoutMs = 180_000;
/** Shorter than the Stripe call in flight (settings.scaleInStripeMs): SIGKILL lands mid-call. */
const shortGraceMs = 500;

function only(result: { contenders: ContenderResult[] }, name: string): ContenderResult {
  const found = result.contenders.find((contender) => contender.name === name);
  if (!found) throw new Error(`no result for ${name}`);
  return found;
}

describe("scale-in fault", () => {
  const settings = harnessSettings(events);
  const plan = planFaults(generateWorkload({ events, seed }), { faults: ["scale-in"], seed });

  it("is planned on its own: scale-ins only, each a valid event", () => {
    expect(plan.faults).toEqual(["scale-in"]);
    expect(plan.scaleIns.size).toBeGreaterThan(0);
    expect(plan.stripe.size + plan.kills.size).toBe(0);
  });

  it("grants the queue's delivery budget as the grace period, in whole seconds like terminationGracePeriodSeconds", () => {
    const budget = harnessDeliveryBudgetMs(settings);
    expect(budget).toBeGreaterThan(settings.stripeTimeoutMs);
    expect(settings.scaleInGracePeriodMs).toBeGreaterThanOrEqual(budget);
    expect(settings.scaleInGracePeriodMs % 1000).toBe(0);
    expect(settings.scaleInGracePeriodMs - budget).toBeLessThan(1000);
    expect(settings.scaleInStripeMs).toBeLessThan(settings.scaleInGracePeriodMs);
    expect(settings.scaleInStripeMs).toBeLessThan(settings.lockDurationMs);
    expect(shortGraceMs).toBeLessThan(settings.scaleInStripeMs);
  });

  it("grace shorter than the charge in flight: SIGKILL cuts it, and the generated consumer still shows 0 duplicates, 0 lost", async () => {
    const result = await runProvingGround({
      events,
      seed,
      faults: ["scale-in"],
      only: ["generated-consumer"],
      settings: { scaleInGracePeriodMs: shortGraceMs },
    });
    const { metrics, scaleIns, verdict, error } = only(result, "generated-consumer");
    expect(error).toBeUndefined();
    expect(scaleIns?.killed).toBeGreaterThan(0);
    expect(metrics.duplicateCharges).toBe(0);
    expect(metrics.lostBillings).toBe(0);
    expect(verdict).toMatch(/^PASS/);
  }, runTimeoutMs);

  it("through the built bin (--faults scale-in --json): the generated consumer's replicas all drain (0 SIGKILLed, 0 duplicates, 0 lost); receive-and-delete, which relies on its process staying up, loses billings", async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` first (npm test does)`);
    const args = [bin, "prove", "--faults", "scale-in", "--events", String(events), "--seed", String(seed)];
    args.push("--only", "receive-and-delete,generated-consumer", "--parallel", "2", "--json");
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(process.execPath, args, { cwd: root, timeout: runTimeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, out) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out });
      });
    });
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as ProvingGroundJson;
    expect(result.faults).toEqual(["scale-in"]);
    const generated = result.contenders.find((contender) => contender.name === "generated-consumer");
    expect(generated?.scaleIns?.killed).toBe(0);
    expect(generated?.scaleIns?.drained).toBeGreaterThan(0);
    expect(generated?.scaleIns?.drained).toBeLessThanOrEqual(plan.scaleIns.size);
    expect(generated?.duplicateCharges).toBe(0);
    expect(generated?.lostBillings).toBe(0);
    // Its close() does not wait for its handlers: it exits at once, and the messages it had taken off the queue
    // (receiveAndDelete) but not yet charged are gone, even with a grace period covering the delivery budget.
    const broken = result.contenders.find((contender) => contender.name === "receive-and-delete");
    expect(broken?.scaleIns?.drained).toBeGreaterThan(0);
    expect(broken?.lostBillings).toBeGreaterThan(0);
  }, runTimeoutMs);

  it("chargeguard prove --help lists the fault and the grace-period option", async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` first (npm test does)`);
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [bin, "prove", "--help"], { cwd: root, timeout: 60_000 }, (error, out) => (error ? reject(error) : resolve(out)));
    });
    expect(stdout).toMatch(/^ {2}scale-in +Container Apps scales the replica in/m);
    expect(stdout).toContain(`--scale-in-grace-ms <ms>`);
    expect(stdout).toContain(`default ${settings.scaleInGracePeriodMs},`);
  });
});
