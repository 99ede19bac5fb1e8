// The Stripe budget shared through real PostgreSQL: one replica's 429s cut the fleet's rate, every replica with work
// takes its share of it, a ceiling given to the fleet holds for the fleet.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openFleetBudget } from "../../../runtime/resilience/fleet-budget.js";
import { accountLimiter, RateGovernor } from "../../../runtime/resilience/rate-governor.js";
import { createScratchDatabase, postgresServerUrl } from "../guard/databases.js";

// Never skipped: without TEST_DATABASE_URL a server is started for this process, or the tests fail saying why.
let serverUrl: string;
beforeAll(async () => {
  serverUrl = await postgresServerUrl();
});

let database: Awaited<ReturnType<typeof createScratchDatabase>>;
beforeAll(async () => {
  database = await createScratchDatabase(serverUrl);
});
afterAll(() => database?.drop());

const replica = async (member: string, account: string, ceilingPerSecond?: number) =>
  new RateGovernor({
    periodMs: 200,
    ...(ceilingPerSecond === undefined ? {} : { ceilingPerSecond }),
    fleet: await openFleetBudget({ databaseUrl: database.url, account, member, ...(ceilingPerSecond === undefined ? {} : { ceilingPerSecond }) }),
  });

/** Keeps a governor busy: calls in a loop, answered as admitted. */
function busy(governor: RateGovernor, until: number): Promise<void> {
  return (async () => {
    while (performance.now() < until) {
      await governor.acquire("payment_intents.create");
      governor.answered("payment_intents.create");
      await sleep(5);
    }
  })();
}

describe("fleet budget", () => {
  it("one replica's 429s set the fleet's rate; both replicas with work share it", async () => {
    const [a, b] = [await replica("a", "acct-1"), await replica("b", "acct-1")];
    try {
      const until = performance.now() + 1_500;
      const work = Promise.all([busy(a, until), busy(b, until)]);
      await sleep(300);
      for (let i = 0; i < 20; i += 1) a.answered("payment_intents.create", "global-rate");
      await work;
      const [rateA, rateB] = [a.rateOf(accountLimiter), b.rateOf(accountLimiter)];
      expect(rateA).toBeGreaterThan(0);
      expect(rateB).toBeCloseTo(rateA as number, 5);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("a ceiling is the fleet's: two busy replicas take half each", async () => {
    const [a, b] = [await replica("a", "acct-2", 40), await replica("b", "acct-2", 40)];
    try {
      await Promise.all([busy(a, performance.now() + 1_000), busy(b, performance.now() + 1_000)]);
      expect(a.rateOf(accountLimiter)).toBeCloseTo(20, 5);
      expect(b.rateOf(accountLimiter)).toBeCloseTo(20, 5);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
