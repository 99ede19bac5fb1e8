// Hostile bytes never reach an operator's terminal: a message whose unknown field names carry an OSC title, a screen
// clear and a hyperlink is dead-lettered by the real consumer (Service Bus emulator, real SDK), and neither the reason
// it writes, nor its log, nor `chargeguard dlq peek` (the built CLI, text and JSON) carries a control character.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBillingConsumer } from "../../../../runtime/consumer/consumer.js";
import type { RunningConsumer } from "../../../../runtime/consumer/consumer-contract.js";
import { operatorQueueRights } from "../../../../tuning/index.js";
import { buildCli, runCli, type BuiltCli } from "../../../support/built-cli.js";
import { consumerOptionsFor, startBillingSandbox, waitFor, type BillingSandbox } from "../../support/billing-sandbox.js";

/** What a terminal obeys: C0 (line feed aside, which the CLI's own lines use), DEL, C1, bidi controls. */
const control = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const osc = "\u001b]0;pwned\u0007";
const clear = "\u001b[2J\u001b[H";
const link = "\u001b]8;;https://evil.invalid\u001b\\pay here\u001b]8;;\u001b\\";

let sandbox: BillingSandbox;
let cli: BuiltCli;
let consumer: RunningConsumer | undefined;
const logs: string[] = [];

beforeAll(async () => {
  [sandbox, cli] = await Promise.all([startBillingSandbox({ authorizationRules: { operator: { rights: operatorQueueRights.sasRights } } }), Promise.resolve(buildCli())]);
}, 180_000);
afterAll(async () => {
  await consumer?.close();
  await sandbox?.stop();
  cli?.remove();
});

describe("text from the queue reaching an operator", () => {
  it("is escaped in the dead-letter reason, the consumer's log and dlq peek", async () => {
    const queue = sandbox.queue(2_000, { duplicateDetection: false });
    consumer = await startBillingConsumer({ ...consumerOptionsFor(sandbox, queue), pglite: sandbox.pglite, log: (line) => logs.push(line) });
    const event = await sandbox.event();
    await sandbox.send(queue, { body: { ...event, [osc]: 1, [clear]: 2, [`a\u202eb`]: 3 }, messageId: `m-${link}`, contentType: "application/json" });
    const [dead] = await waitFor("dead-lettered", () => {
      const letters = sandbox.serviceBus.inspect(queue).deadLettered;
      return letters.length === 1 ? letters : undefined;
    });
    expect(dead?.deadLetterReason).toBe("InvalidEvent");
    const description = String(dead?.deadLetterDescription);
    expect(description).toContain("unknown field");
    expect(description).toContain("\\u001b]0;pwned\\u0007");
    expect(description).not.toMatch(control);
    const logged = logs.join("\n");
    expect(logged).toContain("dead-lettered InvalidEvent");
    for (const line of logs) expect(line).not.toMatch(control);

    const env = { SERVICEBUS_CONNECTION_STRING: sandbox.serviceBus.connectionStringFor("operator") };
    const text = await runCli(cli, ["dlq", "peek", "--queue", queue], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("\\u001b]8;;https://evil.invalid");
    expect(text.stdout).not.toMatch(control);
    const json = await runCli(cli, ["dlq", "peek", "--queue", queue, "--json"], { env });
    expect(json.stdout).not.toMatch(control);
    const [peeked] = JSON.parse(json.stdout) as { messageId: string }[];
    // JSON stays JSON: the id parses back to the bytes that were sent.
    expect(peeked?.messageId).toBe(`m-${link}`);
  });
});
