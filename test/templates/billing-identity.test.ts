// `new consumer --help` says what identifies one billing per flow: each entry must be the key the generated project
// (its src/event.ts) or, for payment-intent, the runtime's usage event actually derives, or the help would lie.
import { readFileSync } from "node:fs";
import path from "node:path";
import { Command } from "commander";
import { describe, expect, it, vi } from "vitest";
import { register } from "../../cli/commands/new.js";
import { usageEventBilling } from "../../runtime/index.js";
import { billingIdentities, flowChoices } from "../../templates/index.js";

const flows = path.resolve(import.meta.dirname, "../../templates/files/flows");

describe("what identifies one billing, per flow", () => {
  it("covers every flow, each entry the fields its event's key derives from", () => {
    expect(Object.keys(billingIdentities).sort()).toEqual([...flowChoices].sort());
    const sample = { customerId: "c", stripeCustomerId: "cus_1", paymentMethodId: "pm_card_visa", billingPeriod: "2026-10", amountCents: 1, currency: "usd" };
    expect(Object.keys(usageEventBilling.toBilling(sample).key).sort()).toEqual([...billingIdentities["payment-intent"].fields].sort());
    for (const flow of flowChoices.filter((name) => name !== "payment-intent")) {
      const source = readFileSync(path.join(flows, flow, "src/event.ts"), "utf8");
      const key = /key: \{([^}]*)\}/.exec(source)?.[1] ?? "";
      const fields = [...key.matchAll(/(\w+): event\.\w+/g)].map((match) => match[1]);
      expect(fields.sort(), flow).toEqual([...billingIdentities[flow].fields].sort());
    }
  });

  it("is said in the default consumer's README, as its event derives it, with what a second event of that identity meets", () => {
    const readme = readFileSync(path.resolve(flows, "../consumer/README.md"), "utf8");
    const fields = billingIdentities["payment-intent"].fields.map((field) => `\`${field}\``).join(" + ");
    expect(readme).toContain(`**What identifies one billing: ${fields}.** Two usage events of one customer in one month are\none billing`);
    expect(readme).toMatch(/one with another amount is dead-lettered\n`BillingRecordMismatch`, its description naming the fields that differ/);
  });

  it("is in new consumer --help, one line per flow", async () => {
    const program = new Command("chargeguard").exitOverride();
    register(program);
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => out.push(String(chunk)) > 0);
    await program.parseAsync(["node", "chargeguard", "new", "consumer", "--help"]).catch(() => undefined);
    write.mockRestore();
    const help = out.join("");
    expect(help).toContain("What identifies one billing, per flow");
    expect(help).toMatch(/^ {2}payment-intent +customerId \+ billingPeriod +one PaymentIntent per customer per month/m);
    expect(help).toMatch(/^ {2}meter-event +usageId +one meter event per usage event/m);
  });
});
