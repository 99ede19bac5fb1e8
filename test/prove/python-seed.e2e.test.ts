// The seed's Python consumers, unchanged, beside their TypeScript ports (prove/python, `npm run prove:python`): under
// the same fault each pair must fail alike, with duplicate charges on both sides. Skipped, with the reason in its
// name, when Debian's Python clients are missing.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { seedScenarios } from "../../prove/python/seed-scenarios.js";
import { runSide } from "../../prove/python/seed-run.js";
import type { ServiceBusEmulator } from "../../sandbox/index.js";
import { pythonWith, startOnAmqpsPort } from "../sandbox/python/python.js";

const python = pythonWith(["azure.servicebus", "stripe", "certifi"]);
if (!python.ok) console.warn(`python-seed: SKIPPED: ${python.reason}`);

describe.skipIf(!python.ok)(`the seed's Python consumers fail as their ports fail${python.ok ? "" : ` (SKIPPED: ${python.reason})`}`, () => {
  let serviceBus: ServiceBusEmulator;
  beforeAll(async () => {
    serviceBus = await startOnAmqpsPort({ queues: {} }, 300_000);
  }, 360_000);
  afterAll(async () => {
    await serviceBus?.stop();
  });

  // Each scenario's two sides run at once (their own queues and Stripe emulators); the faults are per queue or per
  // Stripe, so the sides do not see each other's.
  test.each(seedScenarios.map((scenario) => [scenario.name, scenario] as const))("%s", async (_name, scenario) => {
    const executable = (python as { executable: string }).executable;
    const [seed, port] = await Promise.all([runSide(serviceBus, scenario, "python", 3, executable), runSide(serviceBus, scenario, "port", 3, executable)]);
    expect(port.duplicateCharges, `examples/broken/${scenario.port}`).toBeGreaterThan(0);
    expect(seed.duplicateCharges, `seed/${scenario.snippet}: ${JSON.stringify(seed)}`).toBeGreaterThan(0);
  }, 240_000);
});
