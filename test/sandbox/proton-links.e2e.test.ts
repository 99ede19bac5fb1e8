// Proton-C (Debian's python3-qpid-proton 0.37) against the sandbox's AMQPS listener in every link mode: the C sibling
// of Proton-J, the engine under Java's azure-messaging-servicebus, which cannot be installed here. Skipped, with the
// reason in its name, when the package is missing.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startServiceBusEmulator, type ServiceBusEmulator } from "../../sandbox/index.js";
import { pythonWith, runScript } from "./python/python.js";

const python = pythonWith(["proton"]);
if (!python.ok) console.warn(`proton-links: SKIPPED: ${python.reason}`);

const checks = [
  "cbs_put_token",
  ...["unsettled", "settled", "mixed"].flatMap((snd) => ["first", "second"].map((rcv) => `send_${snd}_${rcv}`)),
  ...["unsettled", "settled"].flatMap((snd) => ["first", "second"].map((rcv) => `receive_${snd}_${rcv}`)),
];
const linkChecks = checks.slice(1);

describe.skipIf(!python.ok)(`Proton-C 0.37 over AMQPS in every link mode${python.ok ? "" : ` (SKIPPED: ${python.reason})`}`, () => {
  let serviceBus: ServiceBusEmulator;
  let results: Promise<Record<string, { ok: boolean; detail: string }>>;
  beforeAll(async () => {
    // Proton takes the port it is given: no need for 5671.
    serviceBus = await startServiceBusEmulator({ queues: Object.fromEntries(linkChecks.map((name) => [name, {}])), tls: { port: 0 } });
    const tls = serviceBus.tls!;
    results = runScript(
      (python as { executable: string }).executable,
      "proton_links.py",
      { port: tls.port, caFile: tls.caFile, queues: Object.fromEntries(linkChecks.map((name) => [name, name])) },
      120_000,
    );
    results.catch(() => {});
  }, 60_000);
  afterAll(async () => {
    await results?.catch(() => {});
    await serviceBus?.stop();
  });

  test.each(checks)("%s", async (check) => {
    const result = (await results)[check];
    expect(result, `${check} did not run`).toBeDefined();
    expect(result!.ok, result!.detail).toBe(true);
    // Every message was taken once: nothing left active or locked.
    if (check !== "cbs_put_token") expect(serviceBus.counts(check)).toMatchObject({ active: 0, locked: 0 });
  }, 130_000);
});
