// `--flow`: each non-default flow writes its own Stripe calls (src/flow.ts) and event schema (src/event.ts) into the
// project, wired through the shared consumer.ts; the default flow writes exactly the consumer template. Fast checks
// on the written files; test/templates/scaffold.test.ts installs, lints and tests one generated flow for real.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtInFlows } from "../../runtime/operator/index.js";
import { type FlowChoice, flowChoices, ScaffoldError, scaffoldConsumer } from "../../templates/index.js";

const checkout = path.resolve(import.meta.dirname, "../..");
const cli = path.join(checkout, "dist/cli/index.js");
let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "chargeguard-scaffold-flows-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** The Stripe calls each flow's src/flow.ts makes, and what its src/event.ts keys a billing on. */
const flowCalls: Record<Exclude<FlowChoice, "payment-intent">, { calls: string[]; key: string }> = {
  charge: { calls: ["stripe.charges.create("], key: "key: { customerId: event.customerId, billingPeriod: event.billingPeriod }" },
  invoice: {
    calls: ["stripe.invoices.create(", "stripe.invoiceItems.create(", "stripe.invoices.finalizeInvoice(", "stripe.invoices.pay("],
    key: "key: { usageId: event.usageId }",
  },
  "meter-event": { calls: ["stripe.billing.meterEvents.create("], key: "key: { usageId: event.usageId }" },
};

const read = (directory: string, file: string) => readFile(path.join(directory, file), "utf8");

describe("scaffoldConsumer --flow", () => {
  it.each(Object.entries(flowCalls))("%s: its Stripe calls and event in src/, wired through startBillingConsumer", async (flow, expected) => {
    const directory = path.join(scratch, flow);
    const result = await scaffoldConsumer({ directory, name: `${flow}-billing`, queue: "usage-billing", currency: "eur", flow: flow as FlowChoice, link: checkout });
    expect(result.files).toEqual(expect.arrayContaining(["src/flow.ts", "src/event.ts", "src/consumer.ts", "test/consumer.test.ts", "src/main.ts"]));
    for (const file of result.files) expect(await read(directory, file), file).not.toMatch(/__[A-Z_]+__/);

    const flowSource = await read(directory, "src/flow.ts");
    expect(flowSource).toContain(`name: "${flow}"`);
    for (const call of expected.calls) expect(flowSource).toContain(call);
    // Every Stripe call carries the guard's key (or a step's key derived from it), never one of its own making.
    expect(flowSource.match(/\{ idempotencyKey: (context\.idempotencyKey|key) \}/g)).toHaveLength(expected.calls.length);
    expect(await read(directory, "src/event.ts")).toContain(expected.key);

    const consumer = await read(directory, "src/consumer.ts");
    expect(consumer).toContain('import { flow, type FlowRequest } from "./flow.js"');
    expect(consumer).toContain("flow, event: billingEvent, tuning: queueTuning");
    const manifest = JSON.parse(await read(directory, "package.json"));
    // zod, which reads the run contract's environment, also reads the flow's event schema.
    expect(manifest.dependencies).toMatchObject({ chargeguard: `file:${checkout}`, zod: expect.stringMatching(/^\d+\.\d+\.\d+$/) });
    expect(manifest.name).toBe(`${flow}-billing`);
    // The reconciler finishes this project's records with its own flow (src/flow.ts, built), not the built-in one.
    expect(manifest.scripts.reconcile).toBe("npm run build --silent && chargeguard reconcile --flows dist/flow.js");
    // The flow's own tests replace the PaymentIntent ones, against the same sandbox.
    const tests = await read(directory, "test/consumer.test.ts");
    expect(tests).toContain('const queue = "usage-billing"');
    expect(tests).not.toContain("paymentIntents");
  });

  it("payment-intent (the default) writes the consumer template and its event (what identifies one billing): no flow.ts, zod for its run contract", async () => {
    const directory = path.join(scratch, "default");
    const result = await scaffoldConsumer({ directory, name: "default-billing", queue: "usage-billing", flow: "payment-intent" });
    expect(result.files).not.toContain("src/flow.ts");
    expect(result.files).toContain("src/event.ts");
    const manifest = JSON.parse(await read(directory, "package.json"));
    expect(manifest.dependencies).toHaveProperty("zod");
    expect(manifest.scripts.reconcile).toBe("chargeguard reconcile");
    expect(await read(directory, "src/consumer.ts")).toContain("startBillingConsumer<BillingEvent, PaymentIntentRequest>({ ...options, event: billingEvent, tuning: queueTuning })");
  });

  it("names an unknown flow and a vault that cannot serve the flow, with the other invalid options", async () => {
    const attempt = scaffoldConsumer({ directory: path.join(scratch, "bad"), name: "Bad", queue: "usage-billing", flow: "subscription" as FlowChoice });
    await expect(attempt).rejects.toBeInstanceOf(ScaffoldError);
    await expect(attempt).rejects.toThrow(/capital letters[\s\S]*--flow must be one of payment-intent, charge, invoice, meter-event, got "subscription"/);
    await expect(
      scaffoldConsumer({ directory: path.join(scratch, "vault"), name: "vault", queue: "usage-billing", flow: "meter-event", vault: "keybrake" }),
    ).rejects.toThrow(/--vault keybrake works with --flow payment-intent only/);
    expect(existsSync(path.join(scratch, "bad"))).toBe(false);
    expect(flowChoices[0]).toBe("payment-intent");
  });

  it("offers exactly the runtime's built-in flows (the CLI's --flow help for new and reconcile lists these)", () => {
    expect([...flowChoices].sort()).toEqual(Object.keys(builtInFlows).sort());
  });

  it("the CLI takes --flow and exits 2 on an unknown one, writing nothing", async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, [cli, "new", "consumer", ...args], { cwd: scratch, timeout: 60_000 }, (error, stdout, stderr) => {
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
        });
      });
    const unknown = await run([path.join(scratch, "cli-unknown"), "--flow", "usage-records"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--flow must be one of payment-intent, charge, invoice, meter-event, got "usage-records"');
    expect(existsSync(path.join(scratch, "cli-unknown"))).toBe(false);

    const metered = await run([path.join(scratch, "cli-metered"), "--flow", "meter-event", "--queue", "usage-billing"]);
    expect(metered.code).toBe(0);
    expect(metered.stdout).toContain("meter-event flow");
    expect(await read(path.join(scratch, "cli-metered"), "src/flow.ts")).toContain("stripe.billing.meterEvents.create(");
  });
});
