// The money model across a day, written out rather than drawn: a billing whose request Stripe committed while every
// answer was dropped (the SDK's own retry, as the template ships it, too) stays unknown while the virtual clock
// crosses Stripe's 24 h key window (the emulator prunes the key, the lease lapses) before it is retried. Checked as a drawn run is (model-invariants.ts): billed exactly once at Stripe, nothing pending, the
// spend ledger equal to the billings; a meter event Stripe cannot be asked about past its window is held unsettleable
// with its reservation, never sent twice. Every flow on PGlite, in one file so the emulators start once.
import { describe, it } from "vitest";
import { modelFlows } from "./model-cells.js";
import { scenarioCommands } from "./model-commands.js";
import { checkScenario, modelInfraForFile } from "./money-model.js";

const infra = modelInfraForFile();
const { send, stripeFault, crossKeyWindow, pause } = scenarioCommands;

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
