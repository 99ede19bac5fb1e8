// What identifies one billing is the team's choice (`--billing-identity`), said in `new consumer --help`, the
// generated src/event.ts (the record's identity and the Stripe key's fields) and README: each must be the key the
// generated event actually derives, or the help and README would lie.
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { register } from "../../cli/commands/new.js";
import { usageEventBilling } from "../../runtime/index.js";
import { billingIdentities, billingIdentityOf, flowBillingIdentities, flowChoices, scaffoldConsumer } from "../../templates/index.js";
import { billingEvent as usageEventKeyed } from "../../templates/files/identity/usage-event/src/event.js";

const flows = path.resolve(import.meta.dirname, "../../templates/files/flows");
const usage = { customerId: "c", stripeCustomerId: "cus_1", paymentMethodId: "pm_card_visa", billingPeriod: "2026-10", amountCents: 1, currency: "usd" };
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "chargeguard-identity-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const scaffold = (name: string, options: Partial<Parameters<typeof scaffoldConsumer>[0]>) =>
  scaffoldConsumer({ directory: path.join(scratch, name), name, queue: "usage-billing", ...options });

describe("what identifies one billing", () => {
  it("is, per flow and choice, the fields the generated event's key derives from", () => {
    expect(Object.keys(billingIdentities).sort()).toEqual([...flowChoices].sort());
    expect(Object.keys(usageEventBilling.toBilling(usage).key).sort()).toEqual([...billingIdentityOf["customer-period"].fields].sort());
    expect(billingIdentities["payment-intent"]).toBe(billingIdentityOf["usage-event"]);
    expect(usageEventKeyed.toBilling({ ...usage, usageId: "u-1" }).key).toEqual({ usageId: "u-1" });
    expect(billingIdentityOf["usage-event"].fields).toEqual(["usageId"]);
    for (const flow of flowChoices.filter((name) => name !== "payment-intent")) {
      const source = readFileSync(path.join(flows, flow, "src/event.ts"), "utf8");
      const key = /key: \{([^}]*)\}/.exec(source)?.[1] ?? "";
      const fields = [...key.matchAll(/(\w+): event\.\w+/g)].map((match) => match[1]);
      expect(fields.sort(), flow).toEqual([...billingIdentities[flow].fields].sort());
      expect(flowBillingIdentities[flow], flow).toHaveLength(1);
    }
  });

  it("usage-event, the default: written into the event schema (a usageId), settings and README; customer-period when asked", async () => {
    const keyed = await scaffold("per-event", {});
    expect(keyed.billingIdentity).toBe("usage-event");
    const event = await readFile(path.join(keyed.directory, "src/event.ts"), "utf8");
    expect(event).toContain("usageId: z.string()");
    expect(event).toContain("key: { usageId }");
    expect(await readFile(path.join(keyed.directory, "src/settings.ts"), "utf8")).toContain('billingIdentity: "usage-event" as');
    const readme = await readFile(path.join(keyed.directory, "README.md"), "utf8");
    expect(readme).toContain("**What identifies one billing: `usageId`** (generated with `--billing-identity usage-event`)");
    expect(readme).toContain("two events of one customer in one month are two charges, the same event sent twice is one");
    expect(readme).toContain("key from the event's business fields only (`usageId`)");
    expect(readme).toContain('{ "usageId": "usage-1", "customerId": "acme-42"');
    expect(readme).toContain("npx chargeguard sandbox send --amount-cents 2500 --usage-id usage-1");
    expect(readme).not.toMatch(/__[A-Z_]+__/);

    const byDefault = await scaffold("per-period", { billingIdentity: "customer-period" });
    expect(byDefault.billingIdentity).toBe("customer-period");
    expect(await readFile(path.join(byDefault.directory, "src/event.ts"), "utf8")).toContain("export const billingEvent = usageEventBilling;");
    const periodReadme = await readFile(path.join(byDefault.directory, "README.md"), "utf8");
    expect(periodReadme).toContain("**What identifies one billing: `customerId` + `billingPeriod`** (generated with `--billing-identity\ncustomer-period`)");
    expect(periodReadme).toMatch(/one with another amount is dead-lettered `BillingRecordMismatch`, its\ndescription naming the fields that differ/);
    expect(periodReadme).not.toMatch(/__[A-Z_]+__/);
  });

  it("refuses a choice the flow does not offer, and an unknown one, by name", async () => {
    await expect(scaffold("invoice-period", { flow: "invoice", billingIdentity: "customer-period" })).rejects.toThrow(
      "--billing-identity customer-period is not offered for --flow invoice (its src/event.ts keys on usage-event: edit the key there)",
    );
    await expect(scaffold("bogus", { billingIdentity: "per-customer" as never })).rejects.toThrow(
      '--billing-identity must be one of usage-event, customer-period, got "per-customer"',
    );
  });

  it("is in new consumer --help, one line per flow with its default and choices", async () => {
    const program = new Command("chargeguard").exitOverride();
    register(program);
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => out.push(String(chunk)) > 0);
    await program.parseAsync(["node", "chargeguard", "new", "consumer", "--help"]).catch(() => undefined);
    write.mockRestore();
    const help = out.join("");
    expect(help).toContain("--billing-identity <identity>");
    expect(help).toContain("What identifies one billing (--billing-identity), per flow");
    expect(help).toMatch(/^ {2}payment-intent +usage-event \(usageId\), by default; or customer-period \(customerId \+ billingPeriod\)$/m);
    expect(help).toMatch(/^ {2}meter-event +usage-event \(usageId\), by default$/m);
  });
});
