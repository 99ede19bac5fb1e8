// The scan's key findings say what the call is, what its repeat does and which unstable source the key comes from
// (#42), as ESLint's messages do, read from the finding's own lines; the fixtures' real findings and single lines.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { withCallWording } from "../../src/scan/call-wording.js";
import { runScan } from "../../src/scan/index.js";

const fixtures = fileURLToPath(new URL("../scan-fixtures", import.meta.url));
const MISSING = "This Stripe call moves money without an idempotency key: a redelivered or resubmitted message is a new request and charges again. Pass idempotency_key= derived from the event's business fields.";
const UNSTABLE =
  "This Stripe idempotency key derives from a queue delivery's metadata (Service Bus or another broker's), randomness or a clock: it changes when the same billing event comes back (a redelivery, a resubmitted dead letter), and Stripe then charges again. Derive the key from the event's business fields (customer, billing period, amount) only.";

describe("the scan's wording", () => {
  it("names the call and its consequence: a refund refunds, a payout pays out, a reversal reverses", () => {
    expect(withCallWording(MISSING, "    stripe.Refund.create(charge=charge_id, amount=500)")).toMatch(/^stripe\.Refund\.create\(\) moves money .* a new request and refunds again\./);
    expect(withCallWording(MISSING, "    await client.payouts.create_async(params={**self.params()})")).toContain("client.payouts.create() moves money without an idempotency key: a redelivered or resubmitted message is a new request and pays out again.");
    expect(withCallWording(MISSING, "    Transfer transfer = Transfer.retrieve(id); client.transfers().createReversal(id, params);")).toContain("and reverses the transfer again");
    expect(withCallWording(MISSING, "    PaymentIntent.create(params);")).toContain("PaymentIntent.create() moves money");
  });

  it("names the unstable source and the call of a key", () => {
    const worded = withCallWording(UNSTABLE, '    client.v1.payment_intents.create(params, options={"idempotency_key": str(uuid.uuid4())})');
    expect(worded).toMatch(/^This idempotency key of client\.v1\.payment_intents\.create\(\) derives from uuid\.uuid4\(\) \(a queue delivery's metadata/);
    expect(withCallWording(UNSTABLE, '        .setIdempotencyKey("charge-" + context.getMessage().getMessageId())')).toContain("derives from getMessageId() (a queue delivery's");
  });

  it("keeps the generic words where the line shows neither", () => {
    expect(withCallWording(UNSTABLE, "        idempotency_key=key,")).toBe(UNSTABLE);
  });

  it("words the fixtures' real findings", async () => {
    const findings = await runScan(["python/broken/message_id_key.py"], { cwd: fixtures });
    const messages = findings.filter((finding) => finding.ruleId === "chargeguard/stable-idempotency-key").map((finding) => finding.message);
    expect(messages.some((message) => message.includes("derives from uuid.uuid4()"))).toBe(true);
  });

  it("names the call, its consequence and the one factory it takes its params or options from (across files)", async () => {
    const python = (await runScan(["projects/python-wrappers/billing"], { cwd: fixtures })).filter((finding) => finding.file.endsWith("payouts_client.py"));
    expect(python.map((finding) => finding.message.split(" (projects")[0])).toEqual([
      "stripe.Transfer.create() moves money without an idempotency key: its params are the ** splat of _transfer_params()",
      "stripe.Payout.create() moves money without an idempotency key: its params are the ** splat of _payout_params()",
    ]);
    const java = await runScan(["projects/java-options-factory"], { cwd: fixtures });
    expect(java.map((finding) => finding.message)).toEqual([
      expect.stringMatching(/^PaymentIntent\.create\(\) moves money with request options from buildRequestOptions\(\) .* a new request and charges again\./),
      expect.stringMatching(/^Refund\.create\(\) moves money with request options from buildRequestOptions\(\) .* a new request and refunds again\./),
    ]);
  });
});
