// `chargeguard dlq` against the Service Bus emulator: thin over runtime/operator/dlq.ts, so these check the wiring and output.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ServiceBusClient } from "@azure/service-bus";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { permanentReasons, register } from "../../cli/commands/dlq.js";
import { exitCodeFor, exitCodes } from "../../cli/exit-codes.js";
import { operatorQueueRights } from "../../tuning/index.js";
import { permanentDeadLetterReasons, resubmitIdReason, type ResubmitReport } from "../../runtime/operator/index.js";
import { startServiceBusEmulator, type ServiceBusEmulator } from "../../sandbox/servicebus/index.js";

let emulator: ServiceBusEmulator;
let client: ServiceBusClient;

beforeAll(async () => {
  emulator = await startServiceBusEmulator({
    queues: { billing: { lockDurationMs: 2_000, duplicateDetectionWindowMs: 600_000 } },
    authorizationRules: {
      operator: { queue: "billing", rights: operatorQueueRights.sasRights },
      "send-only": { queue: "billing", rights: ["Send"] },
      "listen-only": { queue: "billing", rights: ["Listen"] },
    },
  });
  client = new ServiceBusClient(emulator.connectionString);
  const sender = client.createSender("billing");
  await sender.sendMessages([
    { body: { n: 1 }, messageId: "m-1", applicationProperties: { tenant: "a" } },
    { body: { n: 2 }, messageId: "m-2" },
  ]);
  await sender.close();
  const receiver = client.createReceiver("billing");
  const messages = await receiver.receiveMessages(2, { maxWaitTimeInMs: 5_000 });
  for (const message of messages) {
    await receiver.deadLetterMessage(message, { deadLetterReason: "InvalidEvent", deadLetterErrorDescription: `bad ${String(message.messageId)}` });
  }
  await receiver.close();
});
afterAll(async () => {
  await client?.close();
  await emulator?.stop();
});

const secrets = mkdtempSync(join(tmpdir(), "chargeguard-dlq-secrets-"));
afterAll(() => rmSync(secrets, { recursive: true, force: true }));
let secretFiles = 0;

/** A connection string with a key goes in a file (--connection-string-file), as an operator must pass it. */
function asFile(connectionString: string): string[] {
  const file = join(secrets, `connection-${secretFiles++}`);
  writeFileSync(file, connectionString, { mode: 0o600 });
  return ["--connection-string-file", file];
}

async function run(...given: string[]): Promise<string> {
  const at = given.indexOf("--connection-string");
  const args = at === -1 ? given : [...given.slice(0, at), ...asFile(given[at + 1] as string), ...given.slice(at + 2)];
  return runAsGiven(...args);
}

async function runAsGiven(...args: string[]): Promise<string> {
  const program = new Command("chargeguard").exitOverride();
  register(program);
  const output: string[] = [];
  const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    output.push(String(chunk));
    return true;
  });
  try {
    await program.parseAsync(["node", "chargeguard", ...args]);
  } finally {
    write.mockRestore();
  }
  return output.join("");
}

describe("chargeguard dlq", () => {
  it("peek --json lists dead letters without taking them", async () => {
    const out = await run("dlq", "peek", "--queue", "billing", "--connection-string", emulator.connectionString, "--json");
    const listed = JSON.parse(out) as { messageId: string; deadLetterReason: string }[];
    expect(listed.map((m) => [m.messageId, m.deadLetterReason])).toEqual([
      ["m-1", "InvalidEvent"],
      ["m-2", "InvalidEvent"],
    ]);
    expect(emulator.inspect("billing").deadLettered).toHaveLength(2);
  });

  it("peek reads the connection string from SERVICEBUS_CONNECTION_STRING and prints lines", async () => {
    vi.stubEnv("SERVICEBUS_CONNECTION_STRING", emulator.connectionString);
    try {
      const out = await run("dlq", "peek", "--queue", "billing", "--max", "1");
      expect(out.trim().split("\n")).toEqual([expect.stringMatching(/^#\d+ m-1 InvalidEvent: bad m-1$/)]);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("resubmit --dry-run moves nothing and names what it would refuse; --resend-permanent --message-id sends that one under a new id", async () => {
    const operator = emulator.connectionStringFor("operator");
    const dry = await run("dlq", "resubmit", "--queue", "billing", "--connection-string", operator, "--dry-run");
    const lines = dry.trim().split("\n");
    expect(lines[0]).toBe("would send 0 message(s) from billing/$DeadLetterQueue to billing as new messages; 2 refused (cannot succeed when resent)");
    expect(lines[1]).toBe("  by reason: InvalidEvent: 0 would send, 2 refused");
    expect(lines[2]).toMatch(/^ {2}#\d+ m-1 InvalidEvent: bad m-1 -> would be refused: the consumer refused its body: .*fix it at the producer \(--resend-permanent to send it anyway\)$/);
    const withFlag = await run("dlq", "resubmit", "--queue", "billing", "--connection-string", operator, "--dry-run", "--resend-permanent");
    expect(withFlag.trim().split("\n")[2]).toBe(`  (${resubmitIdReason})`);
    expect(withFlag).toMatch(/#(\d+) m-1 InvalidEvent: bad m-1 -> would send as m-1:resubmit:\1/);
    expect(emulator.inspect("billing").deadLettered).toHaveLength(2);

    const refused = JSON.parse(await run("dlq", "resubmit", "--queue", "billing", "--connection-string", operator, "--message-id", "m-2", "--json")) as ResubmitReport;
    expect([refused.moved.length, refused.refused.map((m) => m.messageId), refused.byReason]).toEqual([0, ["m-2"], { InvalidEvent: { moved: 0, refused: 1 } }]);
    expect(emulator.inspect("billing").deadLettered).toHaveLength(2);

    const out = await run("dlq", "resubmit", "--queue", "billing", "--connection-string", operator, "--message-id", "m-2", "--resend-permanent", "--json");
    const report = JSON.parse(out) as ResubmitReport;
    expect(report.skipped).toBe(1);
    expect(report.moved).toEqual([expect.objectContaining({ messageId: "m-2", sentAs: expect.stringMatching(/^m-2:resubmit:\d+$/), why: resubmitIdReason })]);
    const snapshot = emulator.inspect("billing");
    expect(snapshot.deadLettered.map((m) => m.messageId)).toEqual(["m-1"]);
    expect(snapshot.active.map((m) => m.messageId)).toEqual([report.moved[0]?.sentAs]);
  });

  it("--help names the reasons the runtime refuses to resend", async () => {
    expect(Object.keys(permanentReasons)).toEqual(Object.keys(permanentDeadLetterReasons));
  });

  it("resubmit --reason and --since select nothing that does not match, and say so", async () => {
    const operator = emulator.connectionStringFor("operator");
    const none = await run("dlq", "resubmit", "--queue", "billing", "--connection-string", operator, "--reason", "RetryAttemptsExhausted");
    expect(none.trim()).toBe("sent 0 message(s) from billing/$DeadLetterQueue to billing as new messages; 1 left in place (filter)");
    const future = await run("dlq", "peek", "--queue", "billing", "--connection-string", operator, "--since", "2999-01-01T00:00:00Z");
    expect(future.trim()).toBe("billing/$DeadLetterQueue is empty");
    const recent = await run("dlq", "peek", "--queue", "billing", "--connection-string", operator, "--since", "PT1H", "--reason", "InvalidEvent", "--json");
    expect((JSON.parse(recent) as { messageId: string }[]).map((m) => m.messageId)).toEqual(["m-1"]);
    expect(emulator.inspect("billing").deadLettered).toHaveLength(1);
  });

  it("a queue that does not exist is named in one line, exit 2, for peek and resubmit alike", async () => {
    for (const command of ["peek", "resubmit"]) {
      const error = await run("dlq", command, "--queue", "nope", "--connection-string", emulator.connectionString).catch((caught: unknown) => caught);
      expect((error as Error).message).toMatch(/^queue nope does not exist on sb:\/\/127\.0\.0\.1:\d+\/?: check --queue \(or env SERVICEBUS_QUEUE\)$/);
      expect(await exitCodeFor(error)).toBe(exitCodes.usage);
    }
    // A key scoped to another queue names that queue.
    const scoped = await run("dlq", "peek", "--queue", "nope", "--connection-string", emulator.connectionStringFor("operator")).catch((caught: unknown) => caught);
    expect((scoped as Error).message).toBe("the connection string is scoped to queue billing (its EntityPath), not nope: check --queue, or use that queue's connection string");
    expect(await exitCodeFor(scoped)).toBe(exitCodes.usage);
  });

  it("refuses a bad --since", async () => {
    await expect(run("dlq", "peek", "--queue", "billing", "--since", "yesterday")).rejects.toThrow(/allowed: an ISO 8601 time/);
    await expect(run("dlq", "peek", "--queue", "billing", "--since", "P1M")).rejects.toThrow(/months/);
  });

  it("names the rights an operator needs when the connection lacks them, as a configuration error (exit 2)", async () => {
    const sendOnly = emulator.connectionStringFor("send-only");
    const error = await run("dlq", "peek", "--queue", "billing", "--connection-string", sendOnly).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(
      /^not authorized on queue billing: dlq peek needs Listen, dlq resubmit Listen and Send \(Azure Service Bus Data Receiver \+ Azure Service Bus Data Sender/,
    );
    expect(await exitCodeFor(error)).toBe(exitCodes.usage);
  });

  it("resubmit without Send: nothing moves, the rights are named, exit 2 (not a failed run's 1)", async () => {
    const listenOnly = emulator.connectionStringFor("listen-only");
    const peek = async () => JSON.parse(await run("dlq", "peek", "--queue", "billing", "--connection-string", emulator.connectionStringFor("operator"), "--json")) as unknown[];
    const before = await peek();
    expect(before.length).toBeGreaterThan(0);
    const error = await run("dlq", "resubmit", "--queue", "billing", "--connection-string", listenOnly, "--resend-permanent").catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/^not authorized on queue billing: .*dlq resubmit Listen and Send/);
    expect(await exitCodeFor(error)).toBe(exitCodes.usage);
    expect(await peek()).toEqual(before);
  });

  it("refuses a connection string with a key on the command line (every user sees it in ps), naming the alternatives", async () => {
    const error = await runAsGiven("dlq", "peek", "--queue", "billing", "--connection-string", emulator.connectionStringFor("operator")).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/--connection-string carries a secret.*SERVICEBUS_CONNECTION_STRING.*--connection-string-file/);
    expect((error as Error).message).not.toContain("SharedAccessKey=");
    expect(await exitCodeFor(error)).toBe(exitCodes.usage);
  });

  it("has no --derive-message-id (every resubmission gets a fresh derived id)", async () => {
    await expect(run("dlq", "resubmit", "--queue", "billing", "--dry-run", "--derive-message-id")).rejects.toThrow(/unknown option '--derive-message-id'/);
  });

  it("refuses a bad --max and a missing --queue", async () => {
    await expect(run("dlq", "peek", "--queue", "billing", "--max", "0")).rejects.toThrow(/allowed: a whole number from 1 up/);
    await expect(run("dlq", "peek")).rejects.toThrow(/--queue/);
  });
});
