import Stripe from "stripe";
import { describe, expect, it, vi } from "vitest";

const stripe = new Stripe("sk_test_51Hx0aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789abcdefGHIJ", { apiVersion: "2024-06-20" });

vi.mock("@billing/index", () => ({ stripe, requestOptions: () => ({}) }));

describe("close-period", () => {
  it("creates one invoice item per ledger line", async () => {
    const item = await stripe.invoiceItems.create({ customer: "cus_test", amount: 500, currency: "eur" });
    expect(item.amount).toBe(500);
  });
});
