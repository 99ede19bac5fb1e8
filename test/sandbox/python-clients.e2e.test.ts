// Debian's Python clients against the sandbox as it ships (no relay, no patch): azure-servicebus 7.8 (uamqp) over
// AMQPS on 5671 trusting the sandbox's CA, and stripe-python against the Stripe emulator. Each behaviour a consumer
// relies on is one test; skipped, with the reason in its name, when the Debian packages are missing.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startStripeEmulator, type ServiceBusEmulator, type StripeEmulator } from "../../sandbox/index.js";
import { pythonWith, runScript, startOnAmqpsPort } from "./python/python.js";

const python = pythonWith(["azure.servicebus", "stripe"]);
if (!python.ok) console.warn(`python-clients: SKIPPED: ${python.reason}`);

const shortLockMs = 2_000;
const renewerLockMs = 5_000;
const queues = {
  basic: {},
  abandon: {},
  defer: {},
  deadLetter: {},
  shortLock: { lockDurationMs: shortLockMs },
  // Long enough that a loaded machine's Python still renews in time (AutoLockRenewer polls from a thread).
  renewer: { lockDurationMs: renewerLockMs },
  schedule: {},
  receiveAndDelete: {},
  large: {},
};
const checks = [
  "send_receive_complete",
  "abandon_redelivers",
  "defer_and_receive_deferred",
  "dead_letter",
  "renew_and_lock_lost",
  "auto_lock_renewer",
  "schedule_and_cancel",
  "receive_and_delete",
  "wrong_key",
  "listen_only_cannot_send",
  "session_receiver_refused",
  "message_size",
  "stripe_python",
];

describe.skipIf(!python.ok)(`azure-servicebus 7.8 and stripe-python against the sandbox${python.ok ? "" : ` (SKIPPED: ${python.reason})`}`, () => {
  let serviceBus: ServiceBusEmulator;
  let stripe: StripeEmulator;
  let results: Promise<Record<string, { ok: boolean; detail: string }>>;
  beforeAll(async () => {
    serviceBus = await startOnAmqpsPort(
      {
        queues: Object.fromEntries(Object.entries(queues).map(([key, options]) => [`py-${key}`, options])),
        authorizationRules: { monitor: { rights: ["Listen"] } },
      },
      300_000,
    );
    stripe = await startStripeEmulator();
    const tls = serviceBus.tls!;
    results = runScript(
      (python as { executable: string }).executable,
      "sdk_checks.py",
      {
        connectionString: tls.connectionString,
        listenOnlyConnectionString: tls.connectionStringFor("monitor"),
        caFile: tls.caFile,
        queues: Object.fromEntries(Object.keys(queues).map((key) => [key, `py-${key}`])),
        shortLockMs,
        renewerLockMs,
        stripeApiBase: stripe.apiBase,
      },
      240_000,
    );
    // A failed run fails each test with its output, not the hook.
    results.catch(() => {});
  }, 360_000);
  afterAll(async () => {
    await results?.catch(() => {});
    await serviceBus?.stop();
    await stripe?.stop();
  });

  test.each(checks)("%s", async (check) => {
    const result = (await results)[check];
    expect(result, `${check} did not run`).toBeDefined();
    expect(result!.ok, result!.detail).toBe(true);
  }, 250_000);
});
