import { ServiceBusClient } from "@azure/service-bus";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Spawns the built CLI. It is compiled here into a scratch directory (only cli/index.ts and what it imports), so the
// test neither waits for nor disturbs the shared dist/, and other rooms' type errors do not stop the emit.
const root = join(import.meta.dirname, "../..");
let scratch: string;
let cli: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "chargeguard-cli-sandbox-"));
  const outDir = join(scratch, "dist");
  writeFileSync(
    join(scratch, "tsconfig.json"),
    JSON.stringify({
      extends: join(root, "tsconfig.base.json"),
      compilerOptions: { rootDir: root, outDir, noEmitOnError: false, declaration: false, sourceMap: false, incremental: false },
      files: [join(root, "cli/index.ts")],
    }),
  );
  // Before compiling: the compiler finds @types/node through the scratch directory's node_modules.
  symlinkSync(join(root, "node_modules"), join(scratch, "node_modules"));
  const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(scratch, "tsconfig.json")], { encoding: "utf8" });
  cli = join(outDir, "cli/index.js");
  // Type errors elsewhere still emit; a missing file is the failure that matters.
  if (!existsSync(cli)) expect.fail(`CLI did not build:\n${tsc.stdout}${tsc.stderr}`);
  // The CLI reads its version from the nearest package.json: give the scratch build the real one.
  copyFileSync(join(root, "package.json"), join(outDir, "package.json"));
}, 180_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  env: Record<string, string>;
  stderr: () => string;
  stdout: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(args: string[], cwd = root): Promise<Running> {
  const child = spawn(process.execPath, [cli, "sandbox", ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes("STRIPE_API_KEY=")) {
        const lines = stdout.trim().split("\n").filter((line) => !line.startsWith("#"));
        const env = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1).replace(/^'(.*)'$/, "$1")]));
        resolve({ child, env, stderr: () => stderr, stdout: () => stdout, exited });
      }
    });
    void exited.then(({ code }) => reject(new Error(`sandbox exited (${code}) before printing its settings:\n${stderr}`)));
  });
}

describe("chargeguard sandbox", () => {
  it("serves both emulators to the real SDKs, prints a consumer's settings and stops on SIGINT with exit 0", async () => {
    const sandbox = await start(["--servicebus-port", "0", "--amqps-port", "0", "--stripe-port", "0", "--queue", "usage-billing", "--queue", "refunds", "--lock-duration-ms", "5000"]);
    const { env } = sandbox;
    expect(Object.keys(env).sort()).toEqual([
      "SERVICEBUS_AMQPS_CONNECTION_STRING",
      "SERVICEBUS_CA_FILE",
      "SERVICEBUS_CONNECTION_STRING",
      "SERVICEBUS_CONSUMER_CONNECTION_STRING",
      "SERVICEBUS_OPERATOR_CONNECTION_STRING",
      "SERVICEBUS_PRODUCER_CONNECTION_STRING",
      "SERVICEBUS_QUEUE",
      "STRIPE_API_BASE",
      "STRIPE_API_KEY",
    ]);
    expect(env["SERVICEBUS_QUEUE"]).toBe("usage-billing");
    expect(env["STRIPE_API_BASE"]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.stderr()).toContain("queue refunds: lock 5000 ms");
    // For clients that insist on TLS (Python's azure-servicebus): the AMQPS string and the CA to trust, removed on stop.
    expect(env["SERVICEBUS_AMQPS_CONNECTION_STRING"]).toMatch(/^Endpoint=sb:\/\/127\.0\.0\.1:\d+\/;SharedAccessKeyName=RootManageSharedAccessKey;/);
    expect(readFileSync(env["SERVICEBUS_CA_FILE"] as string, "utf8")).toMatch(/^-----BEGIN CERTIFICATE-----/);

    const client = new ServiceBusClient(env["SERVICEBUS_CONNECTION_STRING"] as string);
    try {
      const sender = client.createSender("refunds");
      await sender.sendMessages({ body: { hello: "sandbox" }, messageId: "m-1" });
      const receiver = client.createReceiver("refunds");
      const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5000 });
      expect(message?.body).toEqual({ hello: "sandbox" });
      await receiver.completeMessage(message!);
    } finally {
      await client.close();
    }

    // Each party's string has the rights BillingQueue deploys for it: the producer sends but cannot receive, the
    // consumer receives and settles, the operator peeks the dead-letter queue.
    // No retries: a refusal is not transient, and the SDK would otherwise retry it for a minute and a half.
    const producer = new ServiceBusClient(env["SERVICEBUS_PRODUCER_CONNECTION_STRING"] as string, { retryOptions: { maxRetries: 0 } });
    const consumer = new ServiceBusClient(env["SERVICEBUS_CONSUMER_CONNECTION_STRING"] as string);
    const operator = new ServiceBusClient(env["SERVICEBUS_OPERATOR_CONNECTION_STRING"] as string);
    try {
      await producer.createSender("usage-billing").sendMessages({ body: { role: "producer" }, messageId: "p-1" });
      const refused = await producer.createReceiver("usage-billing").peekMessages(1).catch((error: unknown) => error);
      expect(JSON.stringify(refused, Object.getOwnPropertyNames(refused))).toContain("UnauthorizedAccess");
      const receiver = consumer.createReceiver("usage-billing");
      const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5000 });
      expect(message?.body).toEqual({ role: "producer" });
      await receiver.deadLetterMessage(message!, { deadLetterReason: "InvalidEvent", deadLetterErrorDescription: "sandbox rights test" });
      const [dead] = await operator.createReceiver("usage-billing", { subQueueType: "deadLetter" }).peekMessages(1);
      expect(dead?.messageId).toBe("p-1");
    } finally {
      await Promise.all([producer.close(), consumer.close(), operator.close()]);
    }

    const url = new URL(env["STRIPE_API_BASE"] as string);
    const stripe = new Stripe(env["STRIPE_API_KEY"] as string, { host: url.hostname, port: Number(url.port), protocol: "http", maxNetworkRetries: 0 });
    const intent = await stripe.paymentIntents.create({ amount: 1500, currency: "usd", payment_method: "pm_card_visa", confirm: true }, { idempotencyKey: "cli-1" });
    expect(intent.status).toBe("succeeded");

    sandbox.child.kill("SIGINT");
    expect(await sandbox.exited).toEqual({ code: 0, signal: null });
    expect(sandbox.stderr()).toContain("stopped");
    expect(existsSync(env["SERVICEBUS_CA_FILE"] as string)).toBe(false);
  });

  it("prints an env file that a shell can source and node --env-file can load", async () => {
    const sandbox = await start(["--servicebus-port", "0", "--stripe-port", "0"]);
    try {
      const file = join(scratch, "sandbox.env");
      writeFileSync(file, sandbox.stdout());
      expect(sandbox.stdout()).toMatch(/^# chargeguard sandbox settings: load with .*set -a/);
      const shell = spawnSync("sh", ["-c", `set -a; . "${file}"; set +a; printf '%s|%s' "$SERVICEBUS_CONNECTION_STRING" "$SERVICEBUS_CONSUMER_CONNECTION_STRING"`], { encoding: "utf8" });
      expect(shell.stderr).toBe("");
      expect(shell.stdout).toBe(`${sandbox.env["SERVICEBUS_CONNECTION_STRING"]}|${sandbox.env["SERVICEBUS_CONSUMER_CONNECTION_STRING"]}`);
      expect(sandbox.env["SERVICEBUS_CONSUMER_CONNECTION_STRING"]).toContain("SharedAccessKeyName=consumer;");
      expect(shell.stdout).toContain(";SharedAccessKey");
      const node = spawnSync(process.execPath, [`--env-file=${file}`, "-p", "process.env.SERVICEBUS_CONNECTION_STRING + '|' + process.env.STRIPE_API_KEY"], { encoding: "utf8" });
      expect(node.stdout.trim()).toBe(`${sandbox.env["SERVICEBUS_CONNECTION_STRING"]}|rk_test_sandbox`);
    } finally {
      sandbox.child.kill("SIGTERM");
      await sandbox.exited;
    }
  });

  it("takes queues and their tuning from a stack config, and stops on SIGTERM", async () => {
    const project = join(scratch, "project");
    mkdirSync(project, { recursive: true });
    writeFileSync(
      join(project, "Pulumi.dev.yaml"),
      [
        "config:",
        "  azure-native:location: westeurope",
        "  chargeguard:resourceGroupName: rg-billing-dev",
        "  chargeguard:namespace:",
        "    name: sb-billing-dev",
        "    sku: Standard",
        "  chargeguard:queues:",
        "    - name: usage-billing",
        "      stripe: { timeoutMs: 20000, maxNetworkRetries: 1 }",
        "      maxDeliveryCount: 7",
        "",
      ].join("\n"),
    );
    const sandbox = await start(["--stack", "dev", "--servicebus-port", "0", "--stripe-port", "0"], project);
    expect(sandbox.env["SERVICEBUS_QUEUE"]).toBe("usage-billing");
    expect(sandbox.stderr()).toMatch(/queue usage-billing: lock \d+ ms, max deliveries 7/);
    sandbox.child.kill("SIGTERM");
    expect((await sandbox.exited).code).toBe(0);
  });

  it("names the flag to change when a port is taken", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const taken = (blocker.address() as AddressInfo).port;
    try {
      const result = spawnSync(process.execPath, [cli, "sandbox", "--servicebus-port", "0", "--stripe-port", String(taken)], { cwd: scratch, encoding: "utf8", timeout: 30_000 });
      expect(result.status).toBe(2);
      expect(result.stderr).toContain(`127.0.0.1:${taken} is already in use: pass --stripe-port`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it("with 5672 taken, takes a free port and prints settings that work; asked for by name, refuses and says so in the settings file", async () => {
    // 5672 is the official emulator's and RabbitMQ's port: take it here unless something already holds it.
    const blocker = createServer();
    const held = await new Promise<boolean>((resolve) => {
      blocker.once("error", () => resolve(false));
      blocker.listen(5672, "127.0.0.1", () => resolve(true));
    });
    try {
      const sandbox = await start(["--stripe-port", "0"], scratch);
      expect(sandbox.stderr()).toContain("127.0.0.1:5672 is taken (--servicebus-port's default), so any free port instead");
      const port = Number(/Endpoint=sb:\/\/127\.0\.0\.1:(\d+)/.exec(sandbox.env["SERVICEBUS_CONNECTION_STRING"] ?? "")?.[1]);
      expect(port).toBeGreaterThan(0);
      expect(port).not.toBe(5672);
      // The settings work: the real SDK sends to the queue they name.
      const client = new ServiceBusClient(sandbox.env["SERVICEBUS_CONNECTION_STRING"] ?? "");
      await client.createSender(sandbox.env["SERVICEBUS_QUEUE"] ?? "").sendMessages({ body: "hello" });
      await client.close();
      sandbox.child.kill("SIGINT");
      expect((await sandbox.exited).code).toBe(0);

      const file = join(scratch, "sandbox.env");
      const out = openSync(file, "w");
      const refused = spawnSync(process.execPath, [cli, "sandbox", "--servicebus-port", "5672", "--stripe-port", "0"], { cwd: scratch, encoding: "utf8", timeout: 30_000, stdio: ["ignore", out, "pipe"] });
      closeSync(out);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain("127.0.0.1:5672 is already in use: pass --servicebus-port with another port, or 0 for any free one");
      expect(readFileSync(file, "utf8")).toBe("# chargeguard sandbox did not start, no settings here: 127.0.0.1:5672 is already in use: pass --servicebus-port with another port, or 0 for any free one\n");
    } finally {
      if (held) await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it("refuses bad input with a message naming the problem", () => {
    const run = (args: string[]) => spawnSync(process.execPath, [cli, "sandbox", ...args], { cwd: scratch, encoding: "utf8", timeout: 30_000 });
    const badNumber = run(["--lock-duration-ms", "soon"]);
    expect(badNumber.status).toBe(2);
    expect(badNumber.stderr).toContain('chargeguard sandbox: --lock-duration-ms "soon" is invalid; allowed: a whole number from 100 up');
    const missingStack = run(["--stack", "nowhere"]);
    expect(missingStack.status).toBe(2);
    expect(missingStack.stderr).toContain("Pulumi.nowhere.yaml");
    const both = run(["--stack", "dev", "--queue", "x"]);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain("not both");
    const conflicting = run(["--stack", "dev", "--config-file", "Pulumi.prod.yaml"]);
    expect(conflicting.status).toBe(2);
    expect(conflicting.stderr).toContain("the file is stack prod");
  });
});
