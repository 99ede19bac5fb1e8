// The operator's text: control characters escaped, secrets redacted, CSV cells that no spreadsheet runs.
import { describe, expect, it } from "vitest";
import { csvCell } from "../../../../runtime/core/text/csv-cell.js";
import { redactSecrets } from "../../../../runtime/core/text/redact.js";
import { terminalSafe } from "../../../../runtime/core/text/terminal-safe.js";

describe("terminalSafe", () => {
  const hostile = [
    "\u001b]0;pwned\u0007", // OSC: window title
    "\u001b[2J\u001b[H", // clear screen, cursor home
    "\u001b]8;;https://evil.invalid\u001b\\click\u001b]8;;\u001b\\", // OSC 8 hyperlink
    "\u009b31m", // C1 CSI
    "a\u202eb", // right-to-left override
    "x\u2066y\u2069", // isolates
    "line\nfake line\r", // line breaks
  ];

  it("leaves no control, C1 or bidi character in what it returns", () => {
    for (const text of hostile) {
      const safe = terminalSafe(text);
      expect(safe).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    }
    expect(terminalSafe("\u001b]0;pwned\u0007")).toBe("\\u001b]0;pwned\\u0007");
    expect(terminalSafe("a\u202eb")).toBe("a\\u202eb");
  });

  it("keeps ordinary text, non-Latin letters and, when asked, line feeds", () => {
    expect(terminalSafe("cus_Abc123 2026-10 é 請求")).toBe("cus_Abc123 2026-10 é 請求");
    expect(terminalSafe("one\ntwo\u001b", { multiline: true })).toBe("one\ntwo\\u001b");
  });

  it("is idempotent and keeps JSON valid", () => {
    const once = terminalSafe(JSON.stringify({ k: "\u009b\u202e" }, null, 2), { multiline: true });
    expect(terminalSafe(once, { multiline: true })).toBe(once);
    expect(JSON.parse(once)).toEqual({ k: "\u009b\u202e" });
  });
});

describe("redactSecrets", () => {
  it("hides connection-string keys, URL user info, secret query values and Stripe keys", () => {
    const liveKey = ["rk", "live", "51SECRETsecretSECRET"].join("_");
    const text = [
      "Endpoint=sb://billing.servicebus.windows.net/;SharedAccessKeyName=consumer;SharedAccessKey=c2VjcmV0LWtleQ==",
      "postgres://billing:pa55word@db.internal:5432/billing?sslpassword=hunter2&sslmode=require",
      liveKey,
      "Authorization: Bearer eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl",
      "https://tok3n@proxy.example/v1",
      "Password=swordfish;Host=x",
      // One per line: a ";"-separated line is read as the Azure SDK reads a connection string (a value runs to its ";").
    ].join("\n");
    const redacted = redactSecrets(text);
    for (const secret of ["c2VjcmV0LWtleQ==", "pa55word", "hunter2", "51SECRETsecretSECRET", "eyJhbGciOi", "tok3n", "swordfish"]) {
      expect(redacted).not.toContain(secret);
    }
    for (const kept of ["sb://billing.servicebus.windows.net/", "SharedAccessKeyName=consumer", "db.internal:5432/billing", "sslmode=require", "rk_live_[redacted]", "proxy.example/v1", "Host=x"]) {
      expect(redacted).toContain(kept);
    }
  });

  it("leaves text without secrets alone", () => {
    const plain = "MAX_CONCURRENT_CALLS must be a positive whole number; queue usage-billing on my-ns.servicebus.windows.net";
    expect(redactSecrets(plain)).toBe(plain);
  });
});

describe("csvCell", () => {
  it("neutralises cells a spreadsheet would read as a formula, as OWASP describes", () => {
    expect(csvCell("=HYPERLINK(\"https://evil.invalid\")")).toBe("\"'=HYPERLINK(\"\"https://evil.invalid\"\")\"");
    for (const start of ["=", "+", "-", "@", "\t", "\r"]) expect(csvCell(`${start}1+1`)).toBe(`"'${start}1+1"`);
  });

  it("quotes every text cell and leaves numbers as they are", () => {
    expect(csvCell("cus_1")).toBe("\"cus_1\"");
    expect(csvCell("a,b\nc")).toBe("\"a,b\nc\"");
    expect(csvCell(1299)).toBe("1299");
  });
});
