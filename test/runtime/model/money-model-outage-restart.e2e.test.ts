// The money model's time jumps while PostgreSQL refuses connections, written out rather than drawn (both are drawn
// too: model-commands.ts): a day passing or the month turning restarts the fleet (as a platform restarts containers)
// into the outage. Each replica waits for the database, however long, and the fleet drains once it answers: no
// replica gives up its start (the model's "no process exit but by signal", model-world.ts: one that does fails the
// run), every billing at Stripe once, within its cap. The outage outlasts the 60 s the model's replicas once waited
// before giving up, which lost both of them and failed the drain. PostgreSQL only: PGlite has no server to be down.
import { describe, it } from "vitest";
import { scenarioCommands } from "./model-commands.js";
import { checkScenario, modelInfraForFile } from "./money-model.js";

const infra = modelInfraForFile();
const { send, databaseRefuse, crossKeyWindow, monthTurns, pause } = scenarioCommands;

/** Longer than the old 60 s start wait, so a replica bound by one would give up inside the outage. */
const outageMs = 65_000;

describe("the fleet restarted into a database outage", () => {
  it("payment-intent: the database refuses, a day passes, the outage lasts past a minute: the fleet waits, then bills once", async () => {
    await checkScenario(infra(), { flow: "payment-intent", store: "postgres", vault: "plain" }, [
      send("valid", 21),
      pause(1_500),
      databaseRefuse,
      send("valid", 22, "usd"),
      crossKeyWindow,
      pause(outageMs),
      // Healed when the run's commands end (drainAndCheck): both waiting replicas start and drain the queue.
    ]);
  }, 240_000);

  it("charge: the database refuses, the month turns: the fleet waits, then bills each period once", async () => {
    await checkScenario(infra(), { flow: "charge", store: "postgres", vault: "plain" }, [
      databaseRefuse,
      send("valid", 23, "eur"),
      monthTurns,
      send("valid", 24, "eur"),
      pause(5_000),
    ]);
  }, 180_000);
});
