import { describe, expect, it } from "vitest";
import { renderHtmlReport } from "../../prove/report/html-report.js";
import type { ContenderMetrics } from "../../prove/measure/metrics.js";
import { countsVaryNote, runPassed, toJson, type ProvingGroundResult } from "../../prove/report/results.js";
import { renderTables } from "../../prove/report/table.js";
import { renderCompactTable } from "../../prove/report/compact-table.js";

const metrics = (overrides: Partial<ContenderMetrics>): ContenderMetrics => ({
  events: 1000,
  deliveries: 1100,
  paymentIntents: 950,
  charges: 900,
  duplicateCharges: 0,
  eventsCharged: 900,
  eventsDeclined: 30,
  lostBillings: 0,
  unsettledBillings: 0,
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
      faultHits: { "kill-after-stripe": 3 },
      verdict: "PASS: every valid event billed",
    },
  ],
};

describe("report", () => {
  it("prints exactly the issue's JSON shape", () => {
    const json = toJson(result);
    expect(Object.keys(json)).toEqual(["seed", "events", "scale", "faults", "passed", "outcome", "unsettledBillings", "contenders"]);
    expect(json.scale).toEqual({ events: 1000, flowEvents: 1000, replicas: 4, full: false });
    expect(json.passed).toBe(true);
    expect(json.outcome).toBe("passed");
    expect(json.unsettledBillings).toBe(0);
    expect(json.contenders[0]).toEqual({
      name: "random-uuid-key",
      kind: "example",
      flow: "payment-intent",
      verdict: "FAIL: 30 duplicate charge(s)",
      outcome: "fail",
      expectedFailure: "duplicate charges",
      malformed: { events: 40, deadLettered: 40, charged: 0 },
      events: 1000,
      paymentIntents: 950,
      duplicateCharges: 30,
      lostBillings: 0,
      unsettledBillings: 0,
      overCapCents: 12345,
      repeatedDeclines: 0,
      deadLettered: {},
      eventsCharged: 900,
      eventsDeclined: 30,
      telemetry: { outcomes: {}, duplicatesPrevented: {} },
      wallMs: 4200,
    });
    expect(json.contenders[1]?.faultHits).toEqual({ "kill-after-stripe": 3 });
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
    // How often each of the run's faults actually hit (planned is not hit), a fault that never did with 0.
    expect(text).toContain("faults that hit generated-consumer: kill-after-stripe 3, commit-drop 0");
    // The details (deliveries, telemetry) only with --details.
    expect(text).not.toContain("deliveries");
    expect(text.split("\n").length).toBeLessThan(15);
    // Same seed, same verdict; the counts vary with timing, and the table says so.
    expect(text).toContain(countsVaryNote);
    // What each column counts, and the step after a passing run, last.
    expect(text).toContain("duplicates: succeeded charges beyond one per event; lost: valid events neither charged, declined nor dead-lettered; over-cap:");
    expect(lines.at(-1)).toBe("Next: chargeguard new consumer <dir> writes the consumer that passed, for your queue; its README runs it on the sandbox.");
    const failing = { ...result, contenders: result.contenders.map((c) => (c.kind === "generated" ? { ...c, verdict: "FAIL: 1 duplicate charge(s)" } : c)) };
    expect(renderCompactTable(failing).split("\n").at(-1)).toBe("Next: --details shows every figure of the failing contender; --seed 7 reproduces the verdict.");
  });

  it("prints a table per contender with its verdict", () => {
    const text = renderTables(result);
    expect(text).toContain("random-uuid-key (broken example)");
    expect(text).toMatch(/duplicate charges\s+30/);
    expect(text).toMatch(/over-cap spend\s+\$123\.45/);
    expect(text).toMatch(/dead-lettered\s+InvalidEvent 40/);
    expect(text).toMatch(/faults that hit\s+kill-after-stripe 3, commit-drop 0\n/);
    expect(text).toContain("FAIL: 30 duplicate charge(s)");
    expect(text).toContain("1 of 2 contenders passed: generated-consumer");
    expect(text).toMatch(/telemetry: charged\s+900 \(Stripe: 900 events charged\)/);
    expect(text).toMatch(/duplicates prevented\s+redelivery 60, retry 12, resubmission 3/);
    // The labels that are not self-explanatory are explained once.
    expect(text).toContain("duplicates prevented: billings the guard refused to charge twice, by what brought the event again: redelivery");
    expect(text).toContain("other (the first");
    expect(text).toContain("charge(s) matching no event (in a verdict): succeeded charges at Stripe that no workload event explains.");
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

  describe("the HTML page, laid out for a laptop screen", () => {
    const audit = (duplicates: number, groundTruth: number) => ({ duplicates, groundTruth, disputes: { returnedByLostDispute: 1, held: 1 }, agrees: duplicates === groundTruth, requests: 3 });
    const [example, generated] = result.contenders as [ProvingGroundResult["contenders"][number], ProvingGroundResult["contenders"][number]];
    const big: ProvingGroundResult = {
      ...result,
      events: 10_000,
      contenders: [
        { ...example, metrics: metrics({ events: 10_000, deliveries: 35_528, paymentIntents: 30_448, charges: 11_472, duplicateCharges: 2_326, overCapCents: 15_150_898 }), accountAudit: audit(2_326, 2_326), verdict: "FAIL: 2,326 duplicate charge(s)" },
        { ...generated, metrics: metrics({ events: 10_000, deliveries: 14_165, wallMs: 65_700 }), accountAudit: audit(3, 0) },
        { ...generated, name: "generated-consumer-meter-event", flow: "meter-event" },
      ],
    };
    const html = renderHtmlReport(big);
    const text = html.replace(/<style>[\s\S]*?<\/style>/, "").replace(/<[^>]+>/g, " ");
    const headers = (table: number) => [...(html.split("<table")[table] ?? "").matchAll(/<th>([^<]*)<\/th>/g)].map((match) => match[1]);

    it("opens with the run's verdict as its headline, and says which figures vary", () => {
      expect(html).toContain(`<meta name="viewport" content="width=device-width, initial-scale=1">`);
      expect(html.match(/<h1[^>]*>([^<]*)<\/h1>/)?.slice(0)).toEqual([
        `<h1 class="verdict pass">PASSED: 1 of 1 broken example(s) failed, as they are expected to; the generated consumer passed</h1>`,
        "PASSED: 1 of 1 broken example(s) failed, as they are expected to; the generated consumer passed",
      ]);
      const failing = renderHtmlReport({ ...result, contenders: [example, { ...generated, verdict: "FAIL: 1 lost billing(s)" }] });
      expect(failing).toMatch(/<h1 class="verdict fail">FAILED: [^<]*the generated consumer FAILED<\/h1>/);
      expect(html.indexOf("<h1")).toBeLessThan(html.indexOf("<svg"));
      expect(html).toContain(countsVaryNote);
    });

    it("has one row per contender with its flow, whether the account audit agrees, and a short verdict", () => {
      expect(headers(1)).toEqual(["contender", "flow", "events", "Stripe objects", "duplicate charges", "lost billings", "over-cap spend", "repeated declines", "dead-lettered", "audit agrees", "wall time", "verdict"]);
      const rows = (html.split("<table")[1] ?? "").split("<tr>").slice(2);
      expect(rows).toHaveLength(3);
      expect(rows[0]).toMatch(/<td class="flow">payment-intent<\/td>[\s\S]*<td>yes \(2,326\)<\/td>[\s\S]*FAIL \(expected\)/);
      expect(rows[1]).toMatch(/<td class="bad">NO: found 3, truth 0<\/td>[\s\S]*<span class="chip pass">PASS<\/span>/);
      expect(rows[2]).toMatch(/<td class="flow">meter-event<\/td>[\s\S]*<td title="meter events cannot be listed back from Stripe">-<\/td>/);
      // The long verdict and the per-reason figures in the details table below.
      expect(headers(2)).toEqual(["contender", "deliveries", "dead-lettered, by reason", "duplicates prevented (its telemetry, by source)", "scaled-in replicas", "verdict"]);
      expect(html.split("<table")[2]).toContain("FAIL: 2,326 duplicate charge(s)");
    });

    it("writes every count with thousands separators", () => {
      for (const figure of ["10,000", "35,528", "30,448", "2,326", "$151,508.98", "65.7 s", "9,146 charges + 2,326 duplicates"]) expect(text).toContain(figure);
      expect(text.match(/\d{4,}/g)).toBeNull();
    });

    it("charts duplicates, lost billings, over-cap spend and time, each scaling to its column", () => {
      const svgs = html.match(/<svg[^>]*>/g) ?? [];
      expect(svgs.map((svg) => svg.match(/aria-label="([^"]*)"/)?.[1])).toEqual(["Succeeded charges, duplicates in red", "Lost billings", "Over-cap spend", "Wall time"]);
      for (const svg of svgs) {
        expect(svg).toMatch(/viewBox="0 0 \d+ \d+"/);
        expect(svg).not.toMatch(/ width=/);
      }
      expect(html).toMatch(/\.charts\{display:grid;grid-template-columns:repeat\(2,minmax\(0,1fr\)\)/);
      expect(html).toContain("figure.chart svg{display:block;width:100%;height:auto}");
    });

    it("keeps its tables within a 1280 px page: a fixed layout over column shares adding up to 100%", () => {
      const scenarios: ProvingGroundResult = { ...big, scenarios: [{ scenario: "stripe-outage", contenders: [generated] }] };
      const page = renderHtmlReport(scenarios);
      expect(page).toContain("table.grid{table-layout:fixed;width:100%;min-width:1000px");
      const tables = page.split("<table").slice(1);
      expect(tables).toHaveLength(3);
      for (const table of tables) {
        expect(table).toMatch(/^ class="grid"><colgroup>/);
        const shares = [...(table.split("</colgroup>")[0] ?? "").matchAll(/<col style="width:(\d+)%">/g)].map((match) => Number(match[1]));
        expect(shares.reduce((sum, share) => sum + share, 0)).toBe(100);
        expect(shares.length).toBe((table.match(/<th>/g) ?? []).length);
      }
      // No width or minimum width wider than the page at 1280 px less its padding (2 rem each side).
      const pixelWidths = [...page.matchAll(/(?<![\w-])(?:min-)?width:(\d+)px/g)].map((match) => Number(match[1]));
      expect(pixelWidths).toContain(1000);
      expect(Math.max(...pixelWidths)).toBeLessThanOrEqual(1280 - 64);
      expect(page).toContain("table.grid td.flow{white-space:nowrap}");
    });
  });
});
