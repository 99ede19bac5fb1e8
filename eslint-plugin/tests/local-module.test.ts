// What the names-only analysis reads from a project module it imports (utils/local-module): whether the module uses
// stripe, its subclasses of the client and the names bound to a client, in the ways real configuration modules write
// them.
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { localModuleFacts, stripeFacts } from "../src/utils/local-module.js";

describe("stripeFacts", () => {
  it("finds subclasses (through each other), instances and their exported names", () => {
    const facts = stripeFacts(`
import StripeSdk from "stripe";
export class Payments extends StripeSdk {}
class Billing extends Payments {}
const client = new Billing();
export const api: Billing = new Payments();
export { client as payments };
export default client;`);
    expect(facts.usesStripe).toBe(true);
    expect([...facts.subclasses].sort()).toEqual(["Billing", "Payments"]);
    expect([...facts.clients].sort()).toEqual(["api", "client", "default", "payments"]);
  });

  it("reads CommonJS and namespace imports", () => {
    expect([...stripeFacts(`const stripeFactory = require("stripe");\nconst stripe = stripeFactory(process.env.KEY);`).clients]).toEqual(["stripe"]);
    expect([...stripeFacts(`import * as S from "stripe";\nexport default new S.Stripe(key);`).clients]).toEqual(["default"]);
  });

  it("knows nothing of a module that does not use stripe, whatever its names", () => {
    expect(stripeFacts(`export class Stripe {}\nexport const stripe = new Stripe();`)).toEqual({ usesStripe: false, subclasses: new Set(), clients: new Set(), clientTypes: new Set() });
  });
});

describe("stripeFacts: slices of the client", () => {
  it("finds interfaces and aliases whose members come from Stripe's own types", () => {
    const facts = stripeFacts(`
import type Stripe from "stripe";
export type Payments = Pick<Stripe, "paymentIntents" | "refunds">;
export interface Charges { charges: Stripe["charges"]; readonly "refunds"?: Stripe["refunds"] }
export interface Picked extends Pick<Stripe, "invoices"> {}
export type Inline = { payouts: Readonly<Stripe["payouts"]> };
export interface Customers { customers: Stripe["customers"] }
export type Options = Stripe.RequestOptions;`);
    expect([...facts.clientTypes].sort()).toEqual(["Charges", "Inline", "Payments", "Picked"]);
  });
});

describe("localModuleFacts", () => {
  const directory = mkdtempSync(path.join(tmpdir(), "chargeguard-local-module-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  writeFileSync(path.join(directory, "payments.ts"), `import Stripe from "stripe";\nexport const payments = new Stripe("");`);
  const from = path.join(directory, "service.ts");

  it("resolves a relative specifier as TypeScript does (.js for .ts, no extension), and nothing else", () => {
    expect(localModuleFacts(from, "./payments.js")?.clients.has("payments")).toBe(true);
    expect(localModuleFacts(from, "./payments")?.usesStripe).toBe(true);
    expect(localModuleFacts(from, "./missing.js")).toBeNull();
    expect(localModuleFacts(from, "@/payments")).toBeNull();
    expect(localModuleFacts("service.ts", "./payments.js")).toBeNull();
  });

  it("sees an edit (a long-lived editor ESLint)", () => {
    writeFileSync(path.join(directory, "ledger.ts"), `export const ledger = {};`);
    expect(localModuleFacts(from, "./ledger.js")?.usesStripe).toBe(false);
    writeFileSync(path.join(directory, "ledger.ts"), `import Stripe from "stripe";\nexport const ledger = new Stripe("");`, { flag: "w" });
    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(directory, "ledger.ts"), later, later);
    expect(localModuleFacts(from, "./ledger.js")?.clients.has("ledger")).toBe(true);
  });
});
