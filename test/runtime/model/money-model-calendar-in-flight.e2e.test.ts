// The money model's calendar crossed with billings in flight, written out rather than drawn (`npm run test:all`, the
// e2e project; the other half of the calendar is money-model-calendar.e2e.test.ts): the vault's daily reset crossed
// twice with Stripe's answers held past the client's timeout, the guard's cap per period holding though the vault's day
// starts afresh (model-calendar.ts); an SDK retry met by 429s after its first try was executed, then a day
// (model-retry-refused.ts: defects 1 and 4 of #41, and a throttled run outliving its lease). Checked as a drawn run
// is (model-invariants.ts, stripe-holdings.ts). Every flow on PGlite, in one file so the emulators start once.
import { describe, it } from "vitest";
import { modelFlows } from "./model-cells.js";
import { scenarioCommands } from "./model-commands.js";
import { vaultDayResets } from "./model-calendar.js";
import { retryRefusedThenADay } from "./model-retry-refused.js";
import { checkScenario, modelInfraForFile } from "./money-model.js";

const infra = modelInfraForFile();
const { pause } = scenarioCommands;

describe("the vault's daily reset crossed with billings in flight", () => {
  for (const flow of modelFlows) {
    it(`${flow}: two UTC midnights crossed, Stripe's answers held past the timeout: billed once each, the month's cap holding`, async () => {
      // 2 x 150,000 usd before the first reset, 2 x 150,000 usd before the second: the vault's day starts afresh,
      // the guard's usd cap for the month (400,000) does not (one of the second pair is refused SpendCapExceeded,
      // unless that midnight also turns the month on the file's clock).
      await checkScenario(infra(), { flow, store: "pglite", vault: "keybrake" }, [vaultDayResets(1_500, "usd"), pause(1_000), vaultDayResets(1_500, "usd"), pause(1_000)]);
    }, 120_000);
  }
});

describe("an SDK retry refused after its first try was executed, then a day passes", () => {
  for (const flow of modelFlows) {
    it(`${flow}: the first try timed out (executed), its retry met 429s, a day later: billed once, the refused one held`, async () => {
      // The valid billing is found by look-up past the window (a meter event held unsettleable), never run afresh
      // under a pruned key; the one Stripe refused (no such customer) is held unsettleable past the key window.
      await checkScenario(infra(), { flow, store: "pglite", vault: "plain" }, [
        retryRefusedThenADay("valid", 41, "usd"),
        retryRefusedThenADay("unknown-customer", 42, "eur"),
        pause(1_000),
      ]);
    }, 120_000);
  }
});
