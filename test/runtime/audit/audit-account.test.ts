// The audit engine against an account built elsewhere, through the real `stripe` SDK on the Stripe emulator: every
// certain and likely duplicate found, no false alarm, nothing likely called certain; refunds exactly once, resumable.
import { readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditOptions, AuditResult } from "../../../runtime/audit/index.js";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";
import { buildAccountElsewhere, type AccountTruth } from "./account-built-elsewhere.js";
import { auditOn } from "./audit-on.js";

let emulator: StripeEmulator;
let truth: AccountTruth;

beforeAll(async () => {
  emulator = await startStripeEmulator();
  truth = await buildAccountElsewhere(new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 }), emulator.clock);
});
afterAll(() => emulator.stop());

const audit = (options: Partial<AuditOptions> = {}): Promise<AuditResult> =>
  auditOn(emulator, { retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 }, ...options });

/** Duplicate id -> kept id, per confidence. */
function found(result: AuditResult, confidence: "certain" | "likely"): Map<string, string> {
  return new Map(result.groups.filter((g) => g.confidence === confidence).flatMap((g) => g.duplicates.map((d) => [d.id, g.keep] as const)));
}

describe("auditAccount on an account built elsewhere", () => {
  it("finds every certain and likely duplicate, keeps the earliest, raises no false alarm", async () => {
    const result = await audit();
    expect(found(result, "certain")).toEqual(truth.certain);
    expect(found(result, "likely")).toEqual(truth.likely);
    expect(result.resolved.map((r) => r.refunded)).toEqual([...truth.resolved]);
    const flagged = result.groups.flatMap((g) => g.duplicates.map((d) => d.id));
    expect(flagged.filter((id) => truth.innocent.has(id))).toEqual([]);
    const partial = result.groups.flatMap((g) => g.duplicates).find((d) => d.id === truth.partial.id);
    expect(partial?.remaining).toBe(truth.partial.remaining);
    // One per money movement: an invoice and the charge that paid it are one payment.
    expect(result.examined).toBe(truth.innocent.size + truth.certain.size + truth.likely.size + truth.resolved.size);
  });

  it("audits one flow without counting another flow's payment (an invoice's charge is the invoice's)", async () => {
    const charges = await audit({ flows: ["charges"] });
    expect([...found(charges, "certain").keys(), ...found(charges, "likely").keys()].every((id) => id.startsWith("ch_"))).toBe(true);
    expect(charges.groups).toHaveLength(2);
    const invoices = await audit({ flows: ["invoices"] });
    expect(invoices.groups.map((g) => [g.confidence, g.duplicates.map((d) => d.id)])).toEqual([["certain", [...truth.certain.keys()].filter((id) => id.startsWith("in_"))]]);
  });

  it("treats different keys as different bills, and a wider window or no key as the issue says", async () => {
    // Without a key path every payment is keyless: Bob's two 47.25 bills in one minute now look alike (likely, not certain).
    const keyless = await audit({ keyPath: ["metadata", "no_such_key"] });
    expect(keyless.groups.every((g) => g.confidence === "likely")).toBe(true);
    // A 10-minute window finds Eve's 5-minute pair and misses Cy's 20-minute one.
    const narrow = await audit({ windowSeconds: 600 });
    expect(found(narrow, "likely").size).toBe(truth.likely.size - 1);
  });

  it("keeps its place through 429s, 5xx and a dropped connection while listing: same findings, counted", async () => {
    emulator.faults.inject({ path: "/v1/payment_intents", method: "GET", action: "rateLimit", times: 3 });
    emulator.faults.inject({ path: "/v1/charges", method: "GET", action: "serverError", saved: false, times: 2 });
    const result = await audit();
    emulator.faults.clear();
    expect(found(result, "certain")).toEqual(truth.certain);
    expect(found(result, "likely")).toEqual(truth.likely);
    expect(result.requests).toMatchObject({ rateLimited: 3, retries: 5 });
  });

  it("keeps memory bounded: spilled to partition files, same findings", async () => {
    const tempRoot = await mkdtemp(join(tmpdir(), "audit-spool-test-"));
    try {
      const seen: string[][] = [];
      const result = await audit({
        spool: { partitions: 4, memoryRecords: 5, tempRoot },
        onProgress: () => seen.push(readdirSync(tempRoot)),
      });
      expect(found(result, "certain")).toEqual(truth.certain);
      expect(found(result, "likely")).toEqual(truth.likely);
      expect(seen.some((dirs) => dirs.length === 1)).toBe(true);
      expect(readdirSync(tempRoot)).toEqual([]);
    } finally {
      await rm(tempRoot, { recursive: true, force: true });
    }
  });
});

describe("auditAccount --refund", () => {
  let refundEmulator: StripeEmulator;
  let refundTruth: AccountTruth;
  const refundAudit = (options: Partial<AuditOptions>) => audit({ apiBase: refundEmulator.apiBase, ...options });
  /** Refunds the audit made, per duplicate (refunds made by hand while building the account are not counted). */
  const auditRefunds = () => {
    const counts = new Map<string, number>();
    for (const refund of refundEmulator.ledger.refunds()) {
      const duplicate = refund.metadata["duplicate_payment"];
      if (duplicate !== undefined) counts.set(duplicate, (counts.get(duplicate) ?? 0) + 1);
    }
    return counts;
  };

  beforeAll(async () => {
    refundEmulator = await startStripeEmulator();
    refundTruth = await buildAccountElsewhere(new Stripe("rk_test_sandbox", { ...refundEmulator.stripeConfig, maxNetworkRetries: 0 }), refundEmulator.clock);
  });
  afterAll(() => refundEmulator.stop());

  it("only plans without --yes: the refunds it would make, nothing refunded", async () => {
    const result = await refundAudit({ refund: "plan" });
    expect(new Set(result.refunds?.planned.map((p) => p.duplicate))).toEqual(new Set(refundTruth.certain.keys()));
    expect(result.refunds?.outcomes).toBeUndefined();
    expect(auditRefunds().size).toBe(0);
  });

  it("refunds each certain duplicate in full exactly once across an interrupted run, a rerun and a second run", async () => {
    const [stubborn] = [...refundTruth.certain.keys()];
    // The first run loses one refund to a Stripe outage that outlasts its retries, and one answer to a dropped connection.
    const outage = refundEmulator.faults.inject({ path: "/v1/refunds", method: "POST", action: "serverError", saved: false, when: (req) => Object.values(req.params).includes(stubborn as string) });
    refundEmulator.faults.inject({ path: "/v1/refunds", method: "POST", action: "commitThenDrop", times: 1 });
    const interrupted = await refundAudit({ refund: "issue" });
    expect(interrupted.refunds?.outcomes?.filter((o) => o.error).map((o) => o.duplicate)).toEqual([stubborn]);
    outage.remove();

    const rerun = await refundAudit({ refund: "issue" });
    expect(rerun.refunds?.outcomes?.map((o) => [o.duplicate, o.error])).toEqual([[stubborn, undefined]]);
    const again = await refundAudit({ refund: "issue" });
    expect(again.refunds?.planned).toEqual([]);
    expect(again.groups.every((g) => g.confidence === "likely")).toBe(true);

    expect(auditRefunds()).toEqual(new Map([...refundTruth.certain.keys()].map((id) => [id, 1])));
    for (const refund of refundEmulator.ledger.refunds().filter((r) => r.metadata["duplicate_payment"] !== undefined)) {
      expect(refund).toMatchObject({ reason: "duplicate", metadata: { kept_payment: refundTruth.certain.get(refund.metadata["duplicate_payment"] as string) } });
    }
    const partial = refundEmulator.ledger.refunds().find((r) => r.metadata["duplicate_payment"] === refundTruth.partial.id);
    expect(partial?.amount).toBe(refundTruth.partial.remaining);
    // Every duplicate now holds no money; the innocent payments were never touched.
    const charges = refundEmulator.ledger.charges();
    const touched = charges.filter((c) => c.amount_refunded > 0).map((c) => c.payment_intent ?? c.id);
    expect(touched.filter((id) => refundTruth.innocent.has(id))).toEqual([]);
  });

  it("refunds a likely duplicate only when named by id", async () => {
    const [named] = [...refundTruth.likely.keys()];
    const result = await refundAudit({ refund: "issue", refundIds: new Set([named as string]) });
    expect(result.refunds?.outcomes?.map((o) => [o.duplicate, o.confidence, Boolean(o.refund)])).toEqual([[named, "likely", true]]);
    expect(auditRefunds().get(named as string)).toBe(1);
    expect([...refundTruth.likely.keys()].filter((id) => auditRefunds().has(id))).toEqual([named]);
  });
});
