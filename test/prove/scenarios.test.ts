// The degraded scenarios' pure parts: the names, the windows in virtual time, the seeded split of the sends, the
// figures, and how the three output forms show them.
import { describe, expect, it } from "vitest";
import type { ContenderMetrics } from "../../prove/measure/metrics.js";
import { verdict } from "../../prove/measure/metrics.js";
import { renderHtmlReport } from "../../prove/report/html-report.js";
import { describeVerdict, runOutcome, runPassed, toJson, type ContenderResult, type ProvingGroundResult } from "../../prove/report/results.js";
import { scaled } from "../../prove/scenarios/scenario-context.js";
import { scenarioFigures } from "../../prove/scenarios/scenario-figures.js";
import { parseScenarioNames, scenarioNames, scenarioSpecs, splitSends, virtualTimeFactor, wallMsOf } from "../../prove/scenarios/scenarios.js";
import { renderTables } from "../../prove/report/table.js";

describe("scenario catalogue", () => {
  it("names the five scenarios of issue 21, the Stripe outage at least 30 minutes of virtual time", () => {
    expect(scenarioNames).toEqual(["stripe-outage", "stripe-rate-limit", "database-failover", "database-hang", "vault-outage"]);
    expect(scenarioSpecs["stripe-outage"].lastsVirtualMs).toBeGreaterThanOrEqual(30 * 60_000);
    expect(wallMsOf(30 * 60_000)).toBe(75_000);
    expect(virtualTimeFactor).toBe(24);
    expect(scaled(30_000)).toBe(1_250);
    expect(scaled(5_000, 1_000)).toBe(1_000);
  });

  it("the database scenarios cut idle connections after Azure's 4 minutes (10 s wall); the hang ends with every connection cut", () => {
    for (const name of ["database-failover", "database-hang"] as const) expect(wallMsOf(scenarioSpecs[name].idleCutVirtualMs ?? 0)).toBe(10_000);
    expect(scenarioSpecs["database-hang"].endsWithCut).toBe(true);
    expect(scenarioSpecs["database-failover"].endsWithCut).toBeUndefined();
  });

  it("parses lists, all and none, and refuses unknown names", () => {
    expect(parseScenarioNames("all")).toEqual(scenarioNames);
    expect(parseScenarioNames("none")).toEqual([]);
    expect(parseScenarioNames("vault-outage, stripe-outage,vault-outage")).toEqual(["vault-outage", "stripe-outage"]);
    expect(() => parseScenarioNames("stripe-outage,meteor")).toThrow("unknown scenario(s): meteor");
  });

  it("holds back the same seeded share of the messages for the window's middle, whatever the contender", () => {
    const messages = Array.from({ length: 400 }, (_, i) => i);
    const a = splitSends(messages, scenarioSpecs["stripe-outage"], 7);
    const b = splitSends(messages, scenarioSpecs["stripe-outage"], 7);
    expect(a).toEqual(b);
    expect(a.first.length + a.during.length).toBe(400);
    expect(a.during.length).toBeGreaterThan(150);
    expect(a.during.length).toBeLessThan(250);
    expect(splitSends(messages, scenarioSpecs["stripe-rate-limit"], 7).during).toEqual([]);
  });
});

describe("scenario figures", () => {
  it("rates the requests met per replica per wall second and measures from the recovery", () => {
    const figures = scenarioFigures({
      spec: scenarioSpecs["stripe-outage"],
      counts: { metDegradation: 300 },
      began: 0,
      recoveredAt: 80_000,
      drainedAt: 83_000,
      windowMs: 75_000,
      replicas: 4,
      pausedSeconds: 280,
      factor: 24,
      neededRequests: 180,
      lastAttemptAt: 82_000,
    });
    expect(figures).toMatchObject({ windowVirtualMs: 1_800_000, requestsPerReplicaSecond: 1, pausedSeconds: 280, drainAfterRecoveryMs: 3_000, billedAfterRecoveryMs: 2_000 });
    expect(figures.rateLimit).toBeUndefined();
    expect(figures.connectionsCut).toBeUndefined();
  });

  it("counts the connections the database scenarios cut: at the recovery and for being idle", () => {
    const figures = scenarioFigures({
      spec: scenarioSpecs["database-hang"],
      counts: { metDegradation: 17, connectionsCut: 40, idleCut: 3 },
      began: 0,
      recoveredAt: 12_500,
      drainedAt: 20_000,
      windowMs: 7_500,
      replicas: 4,
      pausedSeconds: 1,
      factor: 24,
      neededRequests: 174,
      lastAttemptAt: 19_000,
    });
    expect(figures.connectionsCut).toEqual({ atRecovery: 40, idle: 3 });
  });

  it("gives the rate limit's budget used over the billing time, its 429 share and the ideal drain", () => {
    const figures = scenarioFigures({
      spec: scenarioSpecs["stripe-rate-limit"],
      counts: { metDegradation: 50, admitted: 190 },
      began: 0,
      recoveredAt: 0,
      drainedAt: 30_000,
      windowMs: 0,
      replicas: 4,
      pausedSeconds: 0,
      factor: 24,
      neededRequests: 186,
      lastAttemptAt: 20_000,
    });
    expect(figures.rateLimit).toEqual({ perSecond: 10, admitted: 190, throttled: 50, throttledShare: 0.208, budgetUsed: 0.95, idealDrainMs: 18_600 });
    expect(figures.requestsPerReplicaSecond).toBeUndefined();
  });
});

const metrics = (overrides: Partial<ContenderMetrics>): ContenderMetrics => ({
  events: 200,
  deliveries: 400,
  paymentIntents: 186,
  charges: 174,
  duplicateCharges: 0,
  eventsCharged: 174,
  eventsDeclined: 12,
  lostBillings: 0,
  unsettledBillings: 0,
  overCapCents: 0,
  repeatedDeclines: 0,
  deadLettered: { InvalidEvent: 14 },
  malformedEvents: 14,
  malformedDeadLettered: 14,
  malformedCharged: 0,
  unattributedCharges: 0,
  validDeadLettered: 0,
  wallMs: 86_000,
  ...overrides,
});

describe("scenario verdicts and reports", () => {
  const naiveMetrics = metrics({ eventsCharged: 100, validDeadLettered: 79, deadLettered: { InvalidEvent: 14, RetryAttemptsExhausted: 79 } });
  const figures = { scenario: "stripe-outage" as const, dependency: "stripe" as const, windowMs: 75_000, windowVirtualMs: 1_800_000, requestsWhileDegraded: 632, requestsPerReplicaSecond: 2.11 };
  const row = (name: string, kind: ContenderResult["kind"], m: ContenderMetrics): ContenderResult => ({
    name,
    kind,
    flow: "payment-intent",
    metrics: m,
    scenario: figures,
    verdict: verdict(m, { validDeadLetteredFails: true }),
  });
  const result: ProvingGroundResult = {
    seed: 7,
    events: 0,
    flowEvents: 0,
    replicas: 4,
    faults: [],
    contenders: [],
    scenarios: [
      { scenario: "stripe-outage", contenders: [row("naive-retry", "example", naiveMetrics), row("generated-consumer", "generated", metrics({}))] },
      { scenario: "database-hang", skipped: "needs PostgreSQL", contenders: [] },
    ],
    wallMs: 90_000,
  };

  it("fails a valid event dead-lettered in a scenario, not in the chaos run's verdict", () => {
    expect(verdict(naiveMetrics, { validDeadLetteredFails: true })).toBe("FAIL: 79 valid event(s) dead-lettered");
    expect(verdict(naiveMetrics)).toMatch(/^PASS/);
    expect(runPassed(result)).toBe(true);
    const failing = { ...result, scenarios: [{ scenario: "stripe-outage" as const, contenders: [row("generated-consumer", "generated", naiveMetrics)] }] };
    expect(runPassed(failing)).toBe(false);
  });

  it("shows each scenario's rows in the table, the JSON and the HTML page", () => {
    const table = renderTables(result);
    expect(table).toContain("stripe-outage: Stripe answers 503");
    expect(table).toContain("naive-retry (its pattern dead-letters valid events here)");
    expect(table).toContain("632 request(s), 2.11/s per replica (wall)");
    expect(table).toContain("not run: needs PostgreSQL");
    const json = toJson(result);
    expect(json.scenarios?.[0]?.contenders[0]).toMatchObject({ name: "naive-retry", expected: "deadLettered", validDeadLettered: 79, figures: { requestsWhileDegraded: 632 } });
    expect(json.scenarios?.[1]).toMatchObject({ scenario: "database-hang", skipped: "needs PostgreSQL", contenders: [] });
    const html = renderHtmlReport(result);
    expect(html).toContain("<h2>Degraded scenarios</h2>");
    expect(html).toContain("FAIL: 79 valid event(s) dead-lettered");
  });

  it("a generated run given up on with billings in flight: DID NOT SETTLE (inconclusive), naming how many; money lost stays FAILED", () => {
    const unsettled = metrics({ eventsCharged: 155, unsettledBillings: 19 });
    const settled = (m: ContenderMetrics) => ({ ...result, scenarios: [{ scenario: "database-failover" as const, contenders: [row("naive-retry", "example", metrics({})), row("generated-consumer", "generated", m)] }] });
    const inconclusive = settled(unsettled);
    expect(runOutcome(inconclusive)).toBe("did-not-settle");
    expect(runPassed(inconclusive)).toBe(false);
    expect(describeVerdict(inconclusive)).toBe(
      "DID NOT SETTLE: degraded scenarios: the generated consumer passed 0 of 1, 1 did not settle; 19 billing(s) still in flight, neither billed, refused nor dead-lettered (inconclusive)",
    );
    const json = toJson(inconclusive);
    expect(json).toMatchObject({ passed: false, outcome: "did-not-settle", unsettledBillings: 19 });
    expect(json.scenarios?.[0]?.contenders[1]).toMatchObject({ outcome: "did-not-settle", unsettledBillings: 19, lostBillings: 0 });
    expect(renderTables(inconclusive)).toContain("0 / 0 (19 unsettled: still in flight)");
    expect(renderHtmlReport(inconclusive)).toContain('<h1 class="verdict unsettled">DID NOT SETTLE: ');

    const lostAndUnsettled = settled(metrics({ duplicateCharges: 1, unsettledBillings: 19 }));
    expect(runOutcome(lostAndUnsettled)).toBe("failed");
    expect(describeVerdict(lostAndUnsettled)).toMatch(/^FAILED: /);
    expect(toJson(lostAndUnsettled)).toMatchObject({ outcome: "failed", unsettledBillings: 19 });
    expect(toJson(result)).toMatchObject({ passed: true, outcome: "passed", unsettledBillings: 0 });
  });
});
