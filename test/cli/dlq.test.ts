// `chargeguard dlq` against the Service Bus emulator: thin over runtime/dlq.ts, so these check the wiring and output.
import { ServiceBusClient } from "@azure/service-bus";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { register } from "../../cli/commands/dlq.js";
import { startServiceBusEmulator, type ServiceBusEmulator } from "../../sandbox/servicebus/index.js";

let emulator: ServiceBusEmulator;
let client: ServiceBusClient;

beforeAll(async () => {
  emulator = await startServiceBusEmulator({ queues: { billing: { lockDurationMs: 2_000 } } });
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

async function run(...args: string[]): Promise<string> {
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

  it("resubmit --dry-run moves nothing; resubmit moves them keeping messageId and reports it", async () => {
    const dry = await run("dlq", "resubmit", "--queue", "billing", "--connection-string", emulator.connectionString, "--dry-run");
    expect(dry).toMatch(/^would move 2 message\(s\) from billing\/\$DeadLetterQueue to billing/);
    expect(emulator.inspect("billing").deadLettered).toHaveLength(2);
    const out = await run("dlq", "resubmit", "--queue", "billing", "--connection-string", emulator.connectionString, "--max", "1", "--json");
    const report = JSON.parse(out) as { moved: { messageId: string; sentAs: string }[] };
    expect(report.moved).toEqual([expect.objectContaining({ messageId: "m-1", sentAs: "m-1" })]);
    const snapshot = emulator.inspect("billing");
    expect(snapshot.deadLettered.map((m) => m.messageId)).toEqual(["m-2"]);
    expect(snapshot.active.map((m) => [m.messageId, m.applicationProperties])).toEqual([
      ["m-1", { tenant: "a", "chargeguard-resubmitted-from": expect.stringMatching(/^billing\/\$DeadLetterQueue#\d+$/) }],
    ]);
  });

  it("refuses a bad --max and a missing --queue", async () => {
    await expect(run("dlq", "peek", "--queue", "billing", "--max", "0")).rejects.toThrow(/positive integer/);
    await expect(run("dlq", "peek")).rejects.toThrow(/--queue/);
  });
});
