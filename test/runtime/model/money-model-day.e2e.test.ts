// The money model across a day, written out rather than drawn: a billing whose request Stripe committed while every
// answer was dropped (the SDK's own retry, as the template ships it, too) stays unknown while the virtual clock
// crosses Stripe's 24 h key window (the emulator prunes the key, the lease lapses) before it is retried. Checked as a drawn run is (model-invariants.ts): billed exactly once at Stripe, nothing pending, the
// spend ledger equal to the billings; a meter event Stripe cannot be asked about past its window is held unsettleable
// with its reservation, never sent twice. And a month turning on the virtual clock (a new period, its own caps per
// currency, which bind); the reconciler running beside the fleet. Every flow on PGlite, in one file so the emulators start once.
import { describe, it } from "vitest";
import { modelFlows } from "./model-cells.js";
import { scenarioCommands } from "./model-commands.js";
import { checkScenario, modelInfraForFile } from "./money-model.js";

const infra = modelInfraForFile();
const { send, stripeFault, crossKeyWindow, monthTurns, reconcilerBeside, leaseExpiry, heal, pause } = scenarioCommands;

describe("a billing left unknown, retried a day later", () => {
  for (const flow of modelFlows) {
    it(`${flow}: committed at Stripe, every answer dropped, then a day passes: billed once`, async () => {
      await checkScenario(infra(), { flow, store: "pglite", vault: "plain" }, [
        // Stripe commits every request and drops its answer, until healed: the billing stays unknown, its record
        // pending, its lease lapsing with the day; healed once the run's commands end (drainAndCheck).
        stripeFault("dropped", undefined),
        send("valid", 11),
        pause(1_500),
        crossKeyWindow,
        pause(1_000),
      ]);
    }, 120_000);
  }
});

describe("a month turns on the virtual clock between billings in two currencies, their caps binding", () => {
  for (const flow of modelFlows) {
    it(`${flow}: each (period, currency) billed at Stripe within its own cap`, async () => {
      // 300,000 in each capped currency fills most of the month's cap (model-world.ts, modelSpendCaps: 400,000);
      // after the month turns the same again is billed under the new period's cap. The drain's two eur billings over
      // half the cap each (model-invariants.ts) then meet the new month's eur cap: one billed, one refused.
      await checkScenario(infra(), { flow, store: "pglite", vault: "plain" }, [
        send("valid", 3_000, "usd"),
        send("valid", 3_000, "eur"),
        pause(1_500),
        monthTurns,
        send("valid", 3_000, "usd"),
        pause(1_000),
      ]);
    }, 120_000);
  }
});

describe("the reconciler runs beside the fleet", () => {
  for (const flow of modelFlows) {
    it(`${flow}: a billing left unknown, its lease lapsed, finished by whichever runs it first: billed once`, async () => {
      await checkScenario(infra(), { flow, store: "pglite", vault: "plain" }, [
        // Stripe commits every request and drops its answer: the record stays pending, its lease lapses.
        stripeFault("dropped", undefined),
        send("valid", 12, "usd"),
        pause(1_500),
        leaseExpiry,
        // The reconciler meets the dropped answers too (still unknown); healed, it and the fleet's retry of the same
        // record run at once: the guard's lease lets one run it, and Stripe replays the first object.
        reconcilerBeside,
        heal,
        leaseExpiry,
        reconcilerBeside,
      ]);
    }, 120_000);
  }
});
