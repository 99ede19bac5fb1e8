#!/usr/bin/env node
// npm run examples:regenerate: rewrites examples/generated-consumer and examples/generated-consumer-<flow> from the
// template, with the options test/examples/generated-consumer.test.ts checks them against (the dev stack's
// usage-billing budget, `--link ../..`). Run it after editing templates/files; files the template no longer writes
// are removed, what installs and runs leave behind (node_modules, dist, .data, the lockfile) is kept.
import { cp, mkdir, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadStackConfig } from "../dist/infra/config/index.js";
import { scaffoldConsumer } from "../dist/templates/index.js";

const repository = fileURLToPath(new URL("..", import.meta.url));
const examples = path.join(repository, "examples");
const committed = [
  { directory: "generated-consumer", flow: "payment-intent" },
  { directory: "generated-consumer-charge", flow: "charge" },
  { directory: "generated-consumer-invoice", flow: "invoice" },
  { directory: "generated-consumer-meter-event", flow: "meter-event" },
  // The OTLP telemetry choice (--telemetry otlp), run by test/examples/generated-consumer-otlp.e2e.test.ts.
  { directory: "generated-consumer-otlp", flow: "payment-intent", telemetry: "otlp" },
];
const produced = new Set(["node_modules", "dist", ".data", "package-lock.json", "eslint.sarif", "chargeguard-scan.sarif"]);

const dev = loadStackConfig({ stack: "dev", cwd: repository });
const budget = dev.queues.find((queue) => queue.name === "usage-billing")?.budget;
if (budget === undefined) throw new Error("the dev stack has no usage-billing queue: its budget is what the examples are made with");

for (const { directory: name, flow, telemetry } of committed) {
  // Beside the committed example, so `--link ../..` names this checkout exactly as the committed one does.
  const target = path.join(examples, `.regenerate-${name}`);
  await rm(target, { recursive: true, force: true });
  try {
    const result = await scaffoldConsumer({
      directory: target,
      name: "usage-billing-consumer",
      queue: "usage-billing",
      link: "../..",
      // The proving ground's contender bills the runtime's usage event (no usageId): one billing per customer-month.
      ...(flow === "payment-intent" ? { billingIdentity: "customer-period" } : { flow }),
      ...(telemetry === undefined ? {} : { telemetry }),
      stackBudget: { stack: dev.stack, configFile: dev.file, budget },
    });
    const destination = path.join(examples, name);
    // A new example's directory is made on its first regeneration.
    await mkdir(destination, { recursive: true });
    for (const entry of await readdir(destination)) {
      if (!produced.has(entry)) await rm(path.join(destination, entry), { recursive: true, force: true });
    }
    await cp(target, destination, { recursive: true });
    console.log(`examples/${name}: ${result.files.length} files (--flow ${flow}${telemetry === undefined ? "" : ` --telemetry ${telemetry}`})`);
  } finally {
    await rm(target, { recursive: true, force: true });
  }
}
