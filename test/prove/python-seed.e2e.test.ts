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

  // The seed's own fix (its content-hash key, its pre-flight guard on PostgreSQL through psycopg2, AutoLockRenewer and
  // write-before-complete), unchanged, under the same faults: what the seed claims, checked. It has no TypeScript port
  // (the kit is its own answer). Needs PostgreSQL (scripts/with-postgres.mjs gives TEST_DATABASE_URL).
  const databaseUrl = process.env.TEST_DATABASE_URL;
  const guardMissing = !databaseUrl ? "no TEST_DATABASE_URL (run under scripts/with-postgres.mjs)" : pythonWith(["psycopg2"]).ok ? undefined : "no psycopg2 (python3-psycopg2)";
  if (guardMissing) console.warn(`python-seed guard: SKIPPED: ${guardMissing}`);
  test.skipIf(guardMissing !== undefined).each(seedScenarios.map((scenario) => [scenario.name, scenario] as const))(
    `the seed's guarded consumer: %s, no duplicate${guardMissing ? ` (SKIPPED: ${guardMissing})` : ""}`,
    async (_name, scenario) => {
      const guard = await runSide(serviceBus, scenario, "guard", 3, (python as { executable: string }).executable, databaseUrl);
      // The fault bit (a redelivery, or a dead letter resubmitted) and the guard held: one charge per event.
      expect(guard.deliveries, JSON.stringify(guard)).toBeGreaterThan(guard.events);
      expect(guard.charges, JSON.stringify(guard)).toBe(guard.events);
      expect(guard.duplicateCharges).toBe(0);
    },
    240_000,
  );
});
