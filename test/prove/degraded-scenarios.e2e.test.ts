// The degraded scenarios (issue 21) at a small scale, all five at once on real emulators, real SDKs and a real
// PostgreSQL (TEST_DATABASE_URL, or one started for this file): the generated consumer bills every valid event once
// through each (0 duplicates, 0 lost, 0 dead-lettered), and the naive contender fails where its pattern says it will
// (dead letters after a 30-minute Stripe outage and a 20-minute vault outage, deliveries held on a hung database until
// the takeover cuts its connections), and presses a throttled Stripe and a failing-over database harder.
import { beforeAll, describe, expect, it } from "vitest";
import type { ContenderResult } from "../../prove/report/results.js";
import { runScenarios, type ScenarioOutcome } from "../../prove/scenarios/scenario-run.js";
import { scenarioNames, scenarioSpecs, type ScenarioName } from "../../prove/scenarios/scenarios.js";
import { postgresServerUrl } from "../support/postgres-server.js";

const events = 100;

describe("degraded scenarios, 100 events each", () => {
  let outcomes: ScenarioOutcome[];
  const contender = (scenario: ScenarioName, kind: ContenderResult["kind"]): ContenderResult => {
    const found = outcomes.find((outcome) => outcome.scenario === scenario)?.contenders.find((each) => each.kind === kind);
    if (!found) throw new Error(`no ${kind} result for ${scenario}`);
    return found;
  };

  beforeAll(async () => {
    const databaseUrl = await postgresServerUrl();
    // Every scenario and contender at once: they spend the windows waiting, not computing.
    outcomes = await runScenarios({ scenarios: scenarioNames, events, databaseUrl, parallel: 2 * scenarioNames.length });
  }, 420_000);

  it("runs the five scenarios, the Stripe outage for at least 30 minutes of virtual time", () => {
    expect(outcomes.map((outcome) => outcome.scenario)).toEqual(scenarioNames);
    expect(outcomes.every((outcome) => outcome.skipped === undefined && outcome.contenders.length === 2)).toBe(true);
    expect(contender("stripe-outage", "generated").scenario?.windowVirtualMs).toBeGreaterThanOrEqual(30 * 60_000);
  });

  for (const scenario of scenarioNames) {
    it(`${scenario}: the generated consumer shows 0 duplicates, 0 missing, 0 dead-lettered`, () => {
      const { metrics, verdict, error } = contender(scenario, "generated");
      expect(error).toBeUndefined();
      expect(metrics.events).toBe(events);
      expect(metrics.eventsCharged).toBeGreaterThan(events * 0.8);
      expect(metrics.duplicateCharges).toBe(0);
      expect(metrics.lostBillings).toBe(0);
      expect(metrics.validDeadLettered).toBe(0);
      expect(metrics.malformedDeadLettered).toBe(metrics.malformedEvents);
      expect(verdict).toMatch(/^PASS/);
    });

    it(`${scenario}: the generated consumer's "billed after" is its own last card attempt, not the audit's dispute fixture seeded after the run`, () => {
      const figures = contender(scenario, "generated").scenario!;
      // Stripe's created is whole seconds: the last attempt may read up to a second after the drain.
      expect(figures.billedAfterRecoveryMs).toBeLessThanOrEqual(figures.drainAfterRecoveryMs! + 1_000);
    });
  }

  it("stripe-outage: the naive contender dead-letters valid events (RetryAttemptsExhausted) and keeps calling Stripe while it is down", () => {
    const naive = contender("stripe-outage", "example");
    expect(scenarioSpecs["stripe-outage"].naiveExpected).toBe("deadLettered");
    expect(naive.metrics.validDeadLettered).toBeGreaterThan(0);
    expect(naive.metrics.deadLettered.RetryAttemptsExhausted).toBeGreaterThan(0);
    expect(naive.metrics.duplicateCharges).toBe(0);
    expect(naive.verdict).toMatch(/^FAIL: \d+ valid event\(s\) dead-lettered/);
    const generated = contender("stripe-outage", "generated").scenario!;
    // The breakers: while Stripe is down the generated fleet sends at most 2 requests/s per replica.
    expect(generated.requestsPerReplicaSecond).toBeLessThanOrEqual(2);
    expect(generated.pausedSeconds).toBeGreaterThan(0);
  });

  it("vault-outage: the naive contender dead-letters valid events; the generated consumer pauses instead", () => {
    const naive = contender("vault-outage", "example");
    expect(naive.metrics.validDeadLettered).toBeGreaterThan(0);
    expect(naive.metrics.deadLettered.RetryAttemptsExhausted).toBeGreaterThan(0);
    expect(contender("vault-outage", "generated").scenario?.pausedSeconds).toBeGreaterThan(0);
  });

  it("database-hang, ended by a takeover's cut: the naive contender (no pg timeouts) holds its deliveries on the hung connections until the cut; no replica of either exits", () => {
    const naive = contender("database-hang", "example");
    expect(scenarioSpecs["database-hang"].naiveExpected).toBe("heldUntilCut");
    expect(naive.scenario!.connectionsCut!.atRecovery).toBeGreaterThan(0);
    expect(naive.metrics.duplicateCharges).toBe(0);
    expect(contender("database-hang", "generated").verdict).toMatch(/^PASS/);
  });

  it("stripe-rate-limit and database-failover: shorter than its retry schedule, the naive contender survives with more 429s and connection attempts", () => {
    for (const scenario of ["stripe-rate-limit", "database-failover"] as const) {
      expect(scenarioSpecs[scenario].naiveExpected).toBe("survives");
      const naive = contender(scenario, "example");
      expect(naive.metrics.duplicateCharges).toBe(0);
      expect(naive.scenario!.requestsWhileDegraded).toBeGreaterThan(contender(scenario, "generated").scenario!.requestsWhileDegraded);
    }
    const limited = contender("stripe-rate-limit", "generated").scenario!.rateLimit!;
    expect(limited.admitted).toBeGreaterThan(0);
    expect(limited.throttledShare).toBeLessThan(contender("stripe-rate-limit", "example").scenario!.rateLimit!.throttledShare);
  });
});
