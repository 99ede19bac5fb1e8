// The failure modes a new user's first day met (issue 45), walked through the built CLI as that user runs it: each is
// one line on stderr in the one style (`chargeguard <command>: ` and what to do), the documented exit code, nothing
// on stdout, no stack and no SDK's raw words. Each command's own test holds the details; this one holds the style
// across all of them, so a command that slips back to a raw SDK error fails here.
import { createServer, type AddressInfo, type Server } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceBusEmulator, type ServiceBusEmulator } from "../../sandbox/servicebus/index.js";
import { startStripeEmulator, type StripeEmulator } from "../../sandbox/stripe/index.js";
import { buildCli, runCli, type BuiltCli } from "../support/built-cli.js";

let cli: BuiltCli;
let serviceBus: ServiceBusEmulator;
let stripe: StripeEmulator;
/** A port something else holds, as 5672 was held by RabbitMQ on the user's machine. */
let blocker: Server;
let takenPort: number;
/** A port nothing listens on: Stripe unreachable. */
let closedPort: number;

const listen = (server: Server) => new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));

beforeAll(async () => {
  cli = buildCli();
  serviceBus = await startServiceBusEmulator({ queues: { "usage-billing": {} } });
  stripe = await startStripeEmulator();
  blocker = createServer();
  takenPort = await listen(blocker);
  const probe = createServer();
  closedPort = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));
}, 180_000);
afterAll(async () => {
  cli?.remove();
  await new Promise((resolve) => blocker?.close(resolve));
  await serviceBus?.stop();
  await stripe?.stop();
});

describe("a first day's failures, each one line in the one style", () => {
  const sandboxEnv = () => ({
    SERVICEBUS_CONNECTION_STRING: serviceBus.connectionString,
    SERVICEBUS_QUEUE: undefined,
    STRIPE_API_BASE: stripe.apiBase,
    STRIPE_API_KEY: "rk_test_sandbox",
    DATABASE_URL: undefined,
  });
  /** `stdout`: what the command prints there on this failure (the sandbox's settings file gets the cause, never nothing). */
  const cases: { name: string; args: () => string[]; code: number; line: () => RegExp; stdout?: () => string }[] = [
    {
      name: "dlq peek on a queue that does not exist (was the SDK's '$DeadLetterQueue/$management' could not be found, exit 1)",
      args: () => ["dlq", "peek", "--queue", "nope"],
      code: 2,
      line: () => /^chargeguard dlq peek: queue nope does not exist on sb:\/\/127\.0\.0\.1:\d+\/?: check --queue \(or env SERVICEBUS_QUEUE\)$/,
    },
    {
      name: "dlq resubmit on a queue that does not exist",
      args: () => ["dlq", "resubmit", "--queue", "nope", "--dry-run"],
      code: 2,
      line: () => /^chargeguard dlq resubmit: queue nope does not exist on sb:\/\/127\.0\.0\.1:\d+\/?: check --queue/,
    },
    {
      name: "sandbox send to a queue that does not exist, checked before anything is created at Stripe",
      args: () => ["sandbox", "send", "--queue", "nope"],
      code: 2,
      line: () => /^chargeguard sandbox send: queue nope does not exist on sb:\/\/127\.0\.0\.1:\d+\/?: .*nothing was created at Stripe$/,
    },
    {
      name: "the sandbox on a port that is taken, named by its flag",
      args: () => ["sandbox", "--servicebus-port", String(takenPort), "--stripe-port", "0"],
      code: 2,
      line: () => new RegExp(`^chargeguard sandbox: 127\\.0\\.0\\.1:${takenPort} is already in use: pass --servicebus-port with another port, or 0 for any free one$`),
      stdout: () => `# chargeguard sandbox did not start, no settings here: 127.0.0.1:${takenPort} is already in use: pass --servicebus-port with another port, or 0 for any free one\n`,
    },
    {
      name: "audit against an unreachable Stripe, naming the URL (was 31.5 s and no URL)",
      args: () => ["audit", "--stripe-api-base", `http://127.0.0.1:${closedPort}`],
      code: 2,
      line: () => new RegExp(`^chargeguard audit: Stripe unreachable at http://127\\.0\\.0\\.1:${closedPort} .*no answer within 5 s`),
    },
    {
      name: "reconcile with no database named",
      args: () => ["reconcile"],
      code: 2,
      line: () => /^chargeguard reconcile: reconcile needs the billing database: --database-url URL, env DATABASE_URL, or --data-dir DIR/,
    },
  ];

  it.each(cases)("$name", async ({ args, code, line, stdout }) => {
    // In the built CLI's scratch directory: no consumer's ./.data there, nothing written beside the project.
    const run = await runCli(cli, args(), { env: sandboxEnv(), cwd: path.resolve(cli.path, "../../..") });
    const lines = run.stderr.trimEnd().split("\n");
    expect(run.code, run.stderr).toBe(code);
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(line());
    expect(run.stderr).not.toMatch(/^\s+at |Error:|EADDRINUSE|\$management/m);
    expect(run.stdout).toBe(stdout?.() ?? "");
  }, 60_000);
});
