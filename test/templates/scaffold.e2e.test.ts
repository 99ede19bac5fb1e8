// End to end: `chargeguard new consumer --link <this checkout>` into a temporary directory, then the generated
// project's own install, type-check, lint (zero findings) and tests against the sandbox, as a user would run them;
// then the same for `--flow invoice`, whose install starts from the first project's modules.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import Stripe from "stripe";
import { ServiceBusClient } from "@azure/service-bus";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceBusEmulator } from "../../sandbox/servicebus/index.js";
import { startStripeEmulator } from "../../sandbox/stripe/index.js";
import { consumerQueueRights, parseIsoDuration } from "../../tuning/index.js";
import { checkout, cli, ensureBuilt, inProject, run, userEnv as env } from "../support/generated-project.js";

let scratch: string;
let project: string;

beforeAll(async () => {
  await ensureBuilt();
  scratch = await mkdtemp(path.join(tmpdir(), "chargeguard-template-"));
  project = path.join(scratch, "usage-billing");
}, 900_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("a generated consumer project", () => {
  it("is created by the CLI with --link", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        cli, "new", "consumer", project, "--name", "usage-billing", "--queue", "usage-billing", "--currency", "eur", "--link", checkout,
        "--stack", "dev", "--config-file", path.join(checkout, "Pulumi.dev.yaml"),
      ],
      inProject(scratch, 60_000),
    );
    expect(stdout).toContain("Created usage-billing");
    expect(stdout).toContain("Tuning: queue usage-billing's budget from Pulumi.dev.yaml (stack dev)");
    const manifest = JSON.parse(await readFile(path.join(project, "package.json"), "utf8"));
    expect(manifest.dependencies.chargeguard).toBe(`file:${checkout}`);
  });

  it("installs offline from the npm cache and builds", async () => {
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], inProject(project, 300_000));
    expect(existsSync(path.join(project, "dist", "main.js"))).toBe(true);
  }, 300_000);

  it("type-checks", async () => {
    await run("npm", ["run", "typecheck"], inProject(project, 180_000));
  }, 180_000);

  it("lints with zero findings under chargeguard's recommended rules", async () => {
    const { stdout } = await run("npx", ["eslint", ".", "--format", "json"], inProject(project, 180_000));
    const results = JSON.parse(stdout) as { filePath: string; messages: { ruleId: string | null; message: string }[] }[];
    expect(results.map((result) => path.relative(project, result.filePath))).toEqual(
      expect.arrayContaining(["src/consumer.ts", "src/main.ts", "test/consumer.test.ts"]),
    );
    expect(results.flatMap((result) => result.messages)).toEqual([]);
  }, 180_000);

  it("passes its own tests against the sandbox", async () => {
    const { stdout } = await run("npm", ["test"], inProject(project, 300_000));
    expect(stdout).toMatch(/Tests\s+26 passed \(26\)/);
  }, 300_000);

  it("npm start -- --print-settings prints the queue's entry of `chargeguard plan --stack dev --json` and exits 0", async () => {
    const [printed, planned] = await Promise.all([
      run("npm", ["start", "--silent", "--", "--print-settings"], { ...inProject(project, 60_000), env: { ...env, STRIPE_API_KEY: "rk_test_51SECRETkey" } }),
      run(process.execPath, [cli, "plan", "--stack", "dev", "--json"], inProject(checkout, 60_000)),
    ]);
    const settings = JSON.parse(printed.stdout) as { queue: string; tuning: Record<string, number> };
    const plan = JSON.parse(planned.stdout) as { queues: { name: string; lockDuration: string; consumer: Record<string, number> }[] };
    const queue = plan.queues.find((entry) => entry.name === "usage-billing");
    expect(settings.queue).toBe("usage-billing");
    expect(settings.tuning).toEqual({
      lockDurationMs: parseIsoDuration(queue!.lockDuration),
      maxAutoLockRenewalDurationInMs: queue!.consumer.maxAutoLockRenewalDurationInMs,
      stripeTimeoutMs: queue!.consumer.stripeTimeoutMs,
      stripeMaxNetworkRetries: queue!.consumer.stripeMaxNetworkRetries,
    });
    expect(printed.stdout).not.toContain("51SECRETkey");
  }, 120_000);

  it("npm start bills from the queue with the run contract's variables, and exits 0 on SIGTERM", async () => {
    // With exactly the rights BillingQueue deploys for a consumer, as in Azure.
    const serviceBus = await startServiceBusEmulator({
      queues: { "usage-billing": {} },
      authorizationRules: { consumer: { queue: "usage-billing", rights: consumerQueueRights.sasRights } },
    });
    const stripeEmulator = await startStripeEmulator();
    const client = new ServiceBusClient(serviceBus.connectionString);
    const serverUrl = process.env.TEST_DATABASE_URL;
    const scratchDatabase = serverUrl
      ? await (await import("../runtime/guard/databases.js")).createScratchDatabase(serverUrl)
      : undefined;
    try {
      const consumer = spawn("npm", ["start"], {
        cwd: project,
        env: {
          ...env,
          SERVICEBUS_CONNECTION_STRING: serviceBus.connectionStringFor("consumer"),
          SERVICEBUS_QUEUE: "usage-billing",
          STRIPE_API_KEY: "rk_test_sandbox",
          STRIPE_API_BASE: stripeEmulator.apiBase,
          BILLING_PERIOD_CAP_CENTS: "1000000",
          // Absent: embedded PGlite under ./.data, as in production without a server.
          ...(scratchDatabase ? { DATABASE_URL: scratchDatabase.url } : {}),
        },
      });
      let output = "";
      consumer.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      consumer.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => consumer.on("exit", (code) => resolve(code)));

      const customer = await new Stripe("rk_test_sandbox", stripeEmulator.stripeConfig).customers.create({});
      await client.createSender("usage-billing").sendMessages({
        body: {
          // The default project bills each usage event: its own id is the billing's identity.
          usageId: "usage-acme-1",
          customerId: "acme-1",
          stripeCustomerId: customer.id,
          paymentMethodId: "pm_card_visa",
          billingPeriod: "2026-10",
          amountCents: 4_200,
          currency: "eur",
        },
      });
      const deadline = Date.now() + 90_000;
      while (stripeEmulator.ledger.paymentIntents(customer.id).length === 0) {
        if (Date.now() > deadline) throw new Error(`no charge from npm start; its output:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(output).toContain("consuming usage-billing");

      consumer.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(stripeEmulator.ledger.paymentIntents(customer.id)).toHaveLength(1);
    } finally {
      await client.close();
      await serviceBus.stop();
      await stripeEmulator.stop();
      await scratchDatabase?.drop();
    }
  }, 180_000);

  it("stops cleanly on a configuration error, naming what is missing", async () => {
    const attempt = run("npm", ["start"], { ...inProject(project, 60_000), env: { ...env, SERVICEBUS_CONNECTION_STRING: "" } });
    await expect(attempt).rejects.toMatchObject({ stderr: expect.stringContaining("SERVICEBUS_CONNECTION_STRING is not set") });
  }, 60_000);
});

// One non-default flow, for real (the others: test/templates/scaffold-flows.test.ts, fast). The invoice flow's four
// Stripe calls live in the project's src/flow.ts, where the team edits them and the lint rules check the edits.
describe("a generated consumer project for --flow invoice", () => {
  let invoiceProject: string;

  it("is created by the CLI and installs offline", async () => {
    invoiceProject = path.join(scratch, "invoice-billing");
    const { stdout } = await run(
      process.execPath,
      [cli, "new", "consumer", invoiceProject, "--flow", "invoice", "--queue", "usage-billing", "--currency", "eur", "--link", checkout],
      inProject(scratch, 60_000),
    );
    expect(stdout).toContain("invoice flow");
    // The same dependencies as the default project: start from its installed modules, hard-linked (the default
    // project's own install above is the one from scratch), and let npm install anything else.
    expect(existsSync(path.join(project, "node_modules"))).toBe(true);
    await run("cp", ["-al", path.join(project, "node_modules"), path.join(invoiceProject, "node_modules")], inProject(scratch, 120_000));
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], inProject(invoiceProject, 300_000));
    expect(existsSync(path.join(invoiceProject, "node_modules", "zod", "package.json"))).toBe(true);
    expect(existsSync(path.join(invoiceProject, "dist", "flow.js"))).toBe(true);
  }, 360_000);

  it("type-checks and lints with zero findings, its flow included", async () => {
    await run("npm", ["run", "typecheck"], inProject(invoiceProject, 180_000));
    const { stdout } = await run("npx", ["eslint", ".", "--format", "json"], inProject(invoiceProject, 180_000));
    const results = JSON.parse(stdout) as { filePath: string; messages: unknown[] }[];
    expect(results.map((result) => path.relative(invoiceProject, result.filePath))).toEqual(expect.arrayContaining(["src/flow.ts", "src/event.ts"]));
    expect(results.flatMap((result) => result.messages)).toEqual([]);
  }, 360_000);

  it("flags an edit of its flow that derives a step's key from the clock", async () => {
    const flowFile = path.join(invoiceProject, "src", "flow.ts");
    const original = await readFile(flowFile, "utf8");
    const edited = original.replace("{ idempotencyKey: key },", "{ idempotencyKey: `${key}:${Date.now()}` },");
    expect(edited).not.toBe(original);
    await writeFile(flowFile, edited);
    try {
      const attempt = run("npx", ["eslint", "src/flow.ts", "--format", "json"], inProject(invoiceProject, 180_000));
      const failed = (await attempt.then(() => undefined, (error: unknown) => error)) as { stdout: string } | undefined;
      const messages = (JSON.parse(failed?.stdout ?? "[]") as { messages: { ruleId: string }[] }[]).flatMap((result) => result.messages);
      expect(messages.map((message) => message.ruleId)).toEqual(["chargeguard/stable-idempotency-key"]);
    } finally {
      await writeFile(flowFile, original);
    }
  }, 180_000);

  it("passes its own tests against the sandbox", async () => {
    const { stdout } = await run("npm", ["test"], inProject(invoiceProject, 300_000));
    expect(stdout).toMatch(/Tests\s+25 passed \(25\)/);
  }, 300_000);
});

describe("npm create chargeguard", () => {
  it("runs the same scaffolder", async () => {
    const target = path.join(scratch, "created");
    await run(
      process.execPath,
      [path.join(checkout, "create-chargeguard", "bin", "create-chargeguard.js"), target, "--name", "created", "--queue", "usage"],
      inProject(scratch, 60_000),
    );
    const manifest = JSON.parse(await readFile(path.join(target, "package.json"), "utf8"));
    expect(manifest.name).toBe("created");
    // From a checkout (never published), chargeguard is vendored by default, as `chargeguard new consumer` does.
    expect(manifest.dependencies.chargeguard).toBe("file:vendor/chargeguard-0.1.0.tgz");
    expect(await readFile(path.join(target, "src", "settings.ts"), "utf8")).toContain('queue: "usage"');
  });
});
