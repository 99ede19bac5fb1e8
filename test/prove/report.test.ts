import { describe, expect, it } from "vitest";
import { renderHtmlReport } from "../../prove/html-report.js";
import type { ContenderMetrics } from "../../prove/metrics.js";
import { runPassed, toJson, type ProvingGroundResult } from "../../prove/results.js";
import { renderTables } from "../../prove/table.js";
import { renderCompactTable } from "../../prove/compact-table.js";

const metrics = (overrides: Partial<ContenderMetrics>): ContenderMetrics => ({
  events: 1000,
  deliveries: 1100,
  paymentIntents: 950,
  charges: 900,
  duplicateCharges: 0,
  eventsCharged: 900,
  eventsDeclined: 30,
  lostBillings: 0,
  overCapCents: 0,
  repeatedDeclines: 0,
  deadLettered: { InvalidEvent: 40 },
  malformedEvents: 40,
  malformedDeadLettered: 40,
  malformedCharged: 0,
  unattributedCharges: 0,
  validDeadLettered: 0,
  wallMs: 4200,
  ...overrides,
});

const result: ProvingGroundResult = {
  seed: 7,
  events: 1000,
  flowEvents: 1000,
  replicas: 4,
  faults: ["kill-after-stripe", "commit-drop"],
  wallMs: 9000,
  contenders: [
    {
      name: "random-uuid-key",
      kind: "example",
      flow: "payment-intent",
      expectedFailure: "duplicate charges",
      metrics: metrics({ charges: 930, duplicateCharges: 30, overCapCents: 12345, deadLettered: {} }),
      verdict: "FAIL: 30 duplicate charge(s)",
    },
    {
      name: "generated-consumer",
      kind: "generated",
      flow: "payment-intent",
      metrics: metrics({}),
      telemetry: {
        outcomes: { charged: 900, declined: 30, already_billed: 75 },
        duplicatesPrevented: { redelivery: 60, retry: 12, resubmission: 3 },
        duplicatesPreventedBy: { guard_billed: 70, stripe_replayed: 5 },
      },
      verdict: "PASS: every valid event billed",
    },
  ],
};

describe("report", () => {
  it("prints exactly the issue's JSON shape", () => {
    const json = toJson(result);
    expect(Object.keys(json)).toEqual(["seed", "events", "scale", "faults", "passed", "contenders"]);
    expect(json.scale).toEqual({ events: 1000, flowEvents: 1000, replicas: 4, full: false });
    expect(json.passed).toBe(true);
    expect(json.contenders[0]).toEqual({
      name: "random-uuid-key",
      kind: "example",
      flow: "payment-intent",
      verdict: "FAIL: 30 duplicate charge(s)",
      expectedFailure: "duplicate charges",
      malformed: { events: 40, deadLettered: 40, charged: 0 },
      events: 1000,
      paymentIntents: 950,
      duplicateCharges: 30,
      lostBillings: 0,
      overCapCents: 12345,
      repeatedDeclines: 0,
      deadLettered: {},
      eventsCharged: 900,
      eventsDeclined: 30,
      telemetry: { outcomes: {}, duplicatesPrevented: {} },
      wallMs: 4200,
    });
    expect(json.contenders[1]?.telemetry).toEqual({
      outcomes: { charged: 900, declined: 30, already_billed: 75 },
      duplicatesPrevented: { redelivery: 60, retry: 12, resubmission: 3 },
    });
  });

  it("passes the run only when every generated contender passes: failing broken examples are expected", () => {
    const failing = { ...result, contenders: result.contenders.map((c) => (c.kind === "generated" ? { ...c, verdict: "FAIL: 1 lost billing(s)" } : c)) };
    expect(runPassed(result)).toBe(true);
    expect(runPassed(failing)).toBe(false);
    expect(toJson(failing).passed).toBe(false);
  });

  it("prints the compact table first: one row per contender, broken examples marked as expected failures", () => {
    const text = renderCompactTable(result);
    const lines = text.split("\n");
    expect(lines[0]).toBe("chargeguard proving ground: seed 7, 1,000 events, faults: kill-after-stripe, commit-drop");
    expect(lines[2]).toMatch(/^contender\s+flow\s+duplicates\s+lost\s+over-cap\s+verdict$/);
    const rows = lines.filter((line) => /^(random-uuid-key|generated-consumer)/.test(line));
    expect(rows).toHaveLength(result.contenders.length);
    expect(rows.find((line) => line.startsWith("random-uuid-key"))).toMatch(/FAIL \(expected: a broken example\)$/);
    expect(rows.find((line) => line.startsWith("generated-consumer (generated)"))).toMatch(/PASS$/);
    // The details (deliveries, telemetry) only with --details.
    expect(text).not.toContain("deliveries");
    expect(text.split("\n").length).toBeLessThan(15);
  });

  it("prints a table per contender with its verdict", () => {
    const text = renderTables(result);
    expect(text).toContain("random-uuid-key (broken example)");
    expect(text).toMatch(/duplicate charges\s+30/);
    expect(text).toMatch(/over-cap spend\s+\$123\.45/);
    expect(text).toMatch(/dead-lettered\s+InvalidEvent 40/);
    expect(text).toContain("FAIL: 30 duplicate charge(s)");
    expect(text).toContain("1 of 2 contenders passed: generated-consumer");
    expect(text).toMatch(/telemetry: charged\s+900 \(Stripe: 900 events charged\)/);
    expect(text).toMatch(/duplicates prevented\s+redelivery 60, retry 12, resubmission 3/);
    expect(text).toMatch(/telemetry\s+none reported/);
  });

  it("states the run's scale, and how to run the full proof when it was a shorter run", () => {
    const short = renderTables(result);
    expect(short).toContain("scale: 1,000 events for the PaymentIntent contenders, 1,000 for each other flow's, 4 replicas per contender");
    expect(short).toContain("The full proof (10,000 / 1,000 events): npm start -- --full");
    const full = renderTables({ ...result, events: 10_000, flowEvents: 1_000 });
    expect(full).toContain("scale: 10,000 events for the PaymentIntent contenders, 1,000 for each other flow's, 4 replicas per contender (the full proof)");
    expect(full).not.toContain("npm start -- --full");
    expect(renderHtmlReport(result)).toContain("npm start -- --full");
  });

  it("writes a self-contained page whose chart highlights duplicates", () => {
    const html = renderHtmlReport({ ...result, contenders: [...result.contenders, { ...result.contenders[1]!, name: "<script>" }] });
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|src=|href=/);
    expect(html).toContain("&lt;script&gt;");
    expect(html.match(/class="dup"/g)).toHaveLength(1);
    expect(html).toContain("900 charges + 30 duplicates");
    expect(html).toContain("<strong>75</strong><br>redelivery: 60<br>retry: 12<br>resubmission: 3");
  });
});
