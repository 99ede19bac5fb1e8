// End to end for one non-default flow: `chargeguard new consumer --flow invoice --link <this checkout>`, then the
// project's install, type-check, lint and tests (its own file, so it runs beside the default project's).
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkout, cli, ensureBuilt, inProject, run } from "../support/generated-project.js";

let scratch: string;

beforeAll(async () => {
  await ensureBuilt();
  scratch = await mkdtemp(path.join(tmpdir(), "chargeguard-flow-template-"));
}, 900_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
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
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], inProject(invoiceProject, 300_000));
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
    expect(stdout).toMatch(/Tests\s+16 passed \(16\)/);
  }, 300_000);
});

