import { describe, expect, it } from "vitest";
import { parseUsageEvent } from "../../runtime/event/event-schema.js";
import { faultNames, parseFaultNames, planFaults } from "../../prove/faults/faults.js";
import { generateWorkload, malformationKinds } from "../../prove/workload/workload.js";

describe("workload", () => {
  it("is the same for the same seed and differs for another", () => {
    const a = generateWorkload({ events: 2000, seed: 7 });
    const b = generateWorkload({ events: 2000, seed: 7 });
    const c = generateWorkload({ events: 2000, seed: 8 });
    expect(JSON.stringify(a.messages)).toBe(JSON.stringify(b.messages));
    expect(JSON.stringify(a.messages)).not.toBe(JSON.stringify(c.messages));
  });

  it("has one event per (customer, period), unique amounts per customer and unique message ids", () => {
    const workload = generateWorkload({ events: 5000, seed: 3 });
    expect(workload.events).toHaveLength(5000);
    const slots = new Set(workload.events.map((e) => `${e.stripeCustomerId}|${e.billingPeriod}`));
    const charges = new Set(workload.events.map((e) => `${e.stripeCustomerId}|${e.amountCents}`));
    expect(slots.size).toBe(5000);
    expect(charges.size).toBe(5000);
    const messageIds = workload.messages.map((m) => m.messageId);
    expect(new Set(messageIds).size).toBe(messageIds.length);
    expect(new Set(workload.events.map((e) => e.billingPeriod)).size).toBe(12);
  });

  it("mixes charges, declines, producer duplicates and every kind of malformed event", () => {
    const workload = generateWorkload({ events: 5000, seed: 11 });
    const byKind = (kind: string) => workload.events.filter((e) => e.kind === kind).length;
    expect(byKind("charge")).toBeGreaterThan(4000);
    expect(byKind("decline")).toBeGreaterThan(150);
    expect(byKind("malformed")).toBeGreaterThan(100);
    const duplicated = workload.events.filter((e) => e.messageIds.length === 2);
    expect(duplicated.length).toBeGreaterThan(100);
    expect(duplicated.every((e) => e.kind !== "malformed")).toBe(true);
    expect(workload.messages).toHaveLength(5000 + duplicated.length);
    expect(new Set(workload.events.map((e) => e.malformation).filter(Boolean))).toEqual(new Set(malformationKinds));
    // every body is distinct, so a re-sent copy (new messageId) is still recognised as its event
    expect(new Set(workload.events.map((e) => JSON.stringify(e.body))).size).toBe(workload.events.length);
  });

  it("states each event's expected outcome the way the runtime's schema sees the body", () => {
    const workload = generateWorkload({ events: 3000, seed: 5 });
    for (const event of workload.events) {
      const parsed = parseUsageEvent(event.body);
      expect(parsed.ok, `${event.id} ${event.malformation ?? event.kind}`).toBe(event.expected !== "dead-lettered");
      if (parsed.ok) {
        expect(parsed.event.paymentMethodId).toBe(event.kind === "decline" ? "pm_card_chargeDeclined" : "pm_card_visa");
      }
    }
  });

  it("sums valid amounts per period, declines included, and refuses bad options", () => {
    const workload = generateWorkload({ events: 600, seed: 1 });
    const total = [...workload.periodTotalsCents.values()].reduce((a, b) => a + b, 0);
    const expected = workload.events.filter((e) => e.usage).reduce((sum, e) => sum + e.amountCents, 0);
    expect(total).toBe(expected);
    expect(() => generateWorkload({ events: 0, seed: 1 })).toThrow(/events must be a positive integer/);
    expect(() => generateWorkload({ events: 10, seed: 1.5 })).toThrow(/seed must be an integer/);
    expect(() => generateWorkload({ events: 10, seed: 1, declineRate: 2 })).toThrow(/declineRate/);
  });
});

describe("fault schedule", () => {
  it("is reproducible, touches only valid events, at most one fault each, and covers every per-event fault", () => {
    const workload = generateWorkload({ events: 4000, seed: 9 });
    const plan = planFaults(workload, { faults: faultNames, seed: 9 });
    const again = planFaults(workload, { faults: faultNames, seed: 9 });
    expect([...again.stripe]).toEqual([...plan.stripe]);
    expect([...again.kills]).toEqual([...plan.kills]);
    expect([...again.scaleIns]).toEqual([...plan.scaleIns]);
    const valid = new Set(workload.events.filter((e) => e.usage).map((e) => e.id));
    for (const id of [...plan.stripe.keys(), ...plan.kills.keys(), ...plan.scaleIns]) expect(valid.has(id)).toBe(true);
    for (const id of plan.stripe.keys()) expect(plan.kills.has(id)).toBe(false);
    for (const id of plan.scaleIns) expect(plan.stripe.has(id) || plan.kills.has(id)).toBe(false);
    expect(plan.scaleIns.size).toBeGreaterThan(0);
    expect(new Set(plan.stripe.values())).toEqual(new Set(["slow-stripe", "commit-drop", "stripe-500", "stripe-409"]));
    expect(new Set(plan.kills.values())).toEqual(new Set(["afterClaim", "afterStripe", "afterRecord", "beforeComplete"]));
    expect(plan.renewBusyRate).toBeGreaterThan(0);
    expect(plan.resubmitDeadLetters).toBe(true);
    const largest = Math.max(...workload.periodTotalsCents.values());
    expect(plan.periodCapCents).toBeGreaterThan(largest);
    expect(plan.periodCapCents).toBeLessThanOrEqual(Math.ceil(largest * 1.01));
  });

  it("selects faults by name", () => {
    const workload = generateWorkload({ events: 2000, seed: 2 });
    const plan = planFaults(workload, { faults: parseFaultNames("kill-after-stripe,spend-cap"), seed: 2 });
    expect(plan.faults).toEqual(["kill-after-stripe", "spend-cap"]);
    expect(plan.stripe.size).toBe(0);
    expect(plan.scaleIns.size).toBe(0);
    expect(plan.kills.size).toBeGreaterThan(0);
    expect(new Set(plan.kills.values())).toEqual(new Set(["afterStripe"]));
    expect(plan.renewBusyRate).toBe(0);
    expect(plan.resubmitDeadLetters).toBe(false);
    expect(parseFaultNames("all")).toEqual(faultNames);
    expect(parseFaultNames("none")).toEqual([]);
    expect(() => parseFaultNames("kill-after-stripe,meteor")).toThrow(/unknown fault\(s\): meteor/);
  });
});
