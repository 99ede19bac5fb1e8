// examples/generated-consumer (and examples/generated-consumer-<flow>, one per other flow) is exactly what
// `chargeguard new consumer` writes today: regenerating each with the options it was made with yields identical
// files, so the committed examples (the proving ground's generated contenders) never drift from the template.
// After editing templates/files, `npm run examples:regenerate` rewrites them.
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { loadStackConfig } from "../../infra/config/index.js";
import { scaffoldConsumer } from "../../templates/index.js";

const examples = path.resolve(import.meta.dirname, "../../examples");
/** The committed example per flow: the default flow has the plain name. */
const committedExamples = [
  { directory: "generated-consumer", flow: "payment-intent" },
  { directory: "generated-consumer-charge", flow: "charge" },
  { directory: "generated-consumer-invoice", flow: "invoice" },
  { directory: "generated-consumer-meter-event", flow: "meter-event" },
  // The OTLP telemetry choice (--telemetry otlp), run by test/examples/generated-consumer-otlp.e2e.test.ts.
  { directory: "generated-consumer-otlp", flow: "payment-intent", telemetry: "otlp" },
] as const;
/** What `npm install`, `npm test` and `npm start` leave in the example; not part of the template. */
const produced = new Set(["node_modules", "dist", ".data", "package-lock.json", "eslint.sarif", "chargeguard-scan.sarif"]);
const scratches: string[] = [];

afterAll(async () => {
  for (const scratch of scratches) await rm(scratch, { recursive: true, force: true });
});

async function filesUnder(root: string, prefix = ""): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(path.join(root, prefix), { withFileTypes: true })) {
    if (prefix === "" && produced.has(entry.name)) continue;
    const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await filesUnder(root, relative)));
    else files.push(relative);
  }
  return files.sort();
}

it.each(committedExamples)("regenerating examples/$directory (--flow $flow) yields identical files", async (example) => {
  const { directory: name, flow } = example;
  const committed = path.join(examples, name);
  const scratch = await mkdtemp(path.join(tmpdir(), "chargeguard-regenerate-"));
  scratches.push(scratch);
  // The same relative --link as the committed example: the checkout sits two levels above the project.
  const directory = path.join(scratch, "examples", name);
  const checkoutCopyLink = path.relative(directory, path.resolve(committed, "../.."));
  expect(existsSync(path.resolve(directory, checkoutCopyLink, "package.json"))).toBe(true);
  // Its queue's budget comes from the dev stack, as `chargeguard new consumer --queue usage-billing --stack dev` takes it.
  const dev = loadStackConfig({ stack: "dev", cwd: path.resolve(committed, "../..") });
  const budget = dev.queues.find((queue) => queue.name === "usage-billing")?.budget;
  expect(budget).toBeDefined();
  const result = await scaffoldConsumer({
    directory,
    name: "usage-billing-consumer",
    queue: "usage-billing",
    link: checkoutCopyLink,
    // The proving ground's contender bills the runtime's usage event (no usageId): one billing per customer-month.
    ...(flow === "payment-intent" ? { billingIdentity: "customer-period" as const } : { flow }),
    ...("telemetry" in example ? { telemetry: example.telemetry } : {}),
    stackBudget: { stack: dev.stack, configFile: dev.file, budget: budget! },
  });

  expect(await filesUnder(committed)).toEqual(result.files);
  for (const file of result.files) {
    const expected = await readFile(path.join(directory, file), "utf8");
    const actual = await readFile(path.join(committed, file), "utf8");
    expect(actual.replaceAll(`file:${checkoutCopyLink}`, "file:../.."), file).toBe(expected.replaceAll(`file:${checkoutCopyLink}`, "file:../.."));
  }
});
