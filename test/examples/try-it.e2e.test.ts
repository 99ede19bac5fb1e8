// The generated README's "Try it" section, followed step by step as a new user would (three terminals: the
// sandbox, the consumer, `chargeguard sandbox send` and a curl with the key as the user), until the first charge.
// The blocks are run as written, with `npx chargeguard` and `npm start` pointing at what they run here: the built
// CLI and the committed generated consumer's built main (both from `npm run build`).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const cli = path.join(root, "dist/cli/index.js");
const main = path.join(root, "dist/examples/generated-consumer/src/main.js");
const scratch = mkdtempSync(path.join(tmpdir(), "chargeguard-try-it-"));
const running: ChildProcess[] = [];

afterAll(async () => {
  for (const child of running.reverse()) {
    if (child.exitCode !== null || child.pid === undefined) continue;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    process.kill(-child.pid, "SIGTERM");
    await exited;
  }
  rmSync(scratch, { recursive: true, force: true });
});

/** The README's shell blocks in the "Try it" section, in order, rewritten to run here. */
function tryItBlocks(): string[] {
  const readme = readFileSync(path.join(root, "examples/generated-consumer/README.md"), "utf8");
  const section = /^## Try it[^\n]*\n([\s\S]*?)^## /m.exec(readme)?.[1];
  if (section === undefined) expect.fail("the generated README has no '## Try it' section");
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
  return blocks.map((block) => block.replaceAll("npx chargeguard", `node ${cli}`).replaceAll("npm start", `exec node ${main}`));
}

function terminal(script: string): { child: ChildProcess; output: () => string } {
  // Its own process group, so stopping the terminal stops what it started.
  const child = spawn("bash", ["-c", script], { cwd: scratch, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "", HOME: scratch } });
  running.push(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

async function until(check: () => boolean, what: string, output: () => string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) expect.fail(`${what} did not happen within ${timeoutMs} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("the generated README's Try it section", () => {
  it("takes a new user from the sandbox to the first charge", async () => {
    for (const file of [cli, main]) if (!existsSync(file)) expect.fail(`${file} is missing: run npm run build first`);
    const [sandboxBlock, consumerBlock, sendBlock, ...rest] = tryItBlocks();
    expect(rest).toEqual([]);
    expect(sendBlock).toContain("curl -s -u \"$STRIPE_API_KEY:\"");

    // The README's fixed ports would collide with other runs on this machine: any free ones.
    const sandbox = terminal((sandboxBlock as string).replace("sandbox > sandbox.env", "sandbox --servicebus-port 0 --stripe-port 0 > sandbox.env"));
    const envFile = path.join(scratch, "sandbox.env");
    await until(() => existsSync(envFile) && readFileSync(envFile, "utf8").includes("STRIPE_API_KEY="), "the sandbox's settings", sandbox.output);

    const consumer = terminal(consumerBlock as string);
    await until(() => /consuming usage-billing/.test(consumer.output()), "the consumer's start", consumer.output);

    const send = spawnSync("bash", ["-c", sendBlock as string], { cwd: scratch, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: scratch }, timeout: 60_000 });
    expect(send.status, send.stderr).toBe(0);
    const [eventLine = "", ...curlLines] = send.stdout.trim().split("\n");
    const event = JSON.parse(eventLine) as { customerId: string; stripeCustomerId: string; amountCents: number; currency: string };
    expect(event).toMatchObject({ customerId: "acme-42", amountCents: 2_500, currency: "usd" });
    expect(event.stripeCustomerId).toMatch(/^cus_/);

    await until(() => /charged/.test(consumer.output()), "the charge", consumer.output);
    expect(consumer.output()).not.toMatch(/dead-lettered/);
    // curl ran right after the send, maybe before the charge: ask Stripe again, the same way, now.
    const env = Object.fromEntries(
      readFileSync(envFile, "utf8").split("\n").filter((line) => /^[A-Z_]+=/.test(line)).map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1).replace(/^'(.*)'$/, "$1")]),
    );
    const curl = spawnSync("curl", ["-s", "-u", `${env.STRIPE_API_KEY}:`, `${env.STRIPE_API_BASE}/v1/payment_intents?customer=${event.stripeCustomerId}`], { encoding: "utf8" });
    const intents = JSON.parse(curl.stdout) as { data: { amount: number; currency: string; status: string; customer: string }[] };
    expect(intents.data).toEqual([expect.objectContaining({ amount: 2_500, currency: "usd", status: "succeeded", customer: event.stripeCustomerId })]);
    // The README's own curl (Basic auth, the key as the user) was answered with a list, not an auth error.
    expect((JSON.parse(curlLines.join("\n")) as { object: string }).object).toBe("list");
  }, 180_000);
});
