// One replica of the fleet bench (bench/fleet.ts), in its own process as a deployed replica is: the billing consumer
// on the shared PostgreSQL, against the emulators the parent runs. Told its settings as JSON in argv[2]; tells the
// parent "ready" once consuming, and closes on "stop".
import { startBillingConsumer } from "../runtime/index.js";

export interface ReplicaSettings {
  connectionString: string;
  queue: string;
  stripeApiBase: string;
  databaseUrl: string;
  maxConcurrentCalls: number;
  stripeRequestsPerSecond?: number;
}

const settings = JSON.parse(process.argv[2] ?? "{}") as ReplicaSettings;
const lines: string[] = [];
const consumer = await startBillingConsumer({
  serviceBus: { connectionString: settings.connectionString, queueName: settings.queue },
  stripe: { apiKey: "rk_test_sandbox", apiBase: settings.stripeApiBase, timeoutMs: 10_000, maxNetworkRetries: 1 },
  databaseUrl: settings.databaseUrl,
  maxConcurrentCalls: settings.maxConcurrentCalls,
  ...(settings.stripeRequestsPerSecond === undefined ? {} : { stripeRequestsPerSecond: settings.stripeRequestsPerSecond }),
  // The bench reads what happened from the emulators; keep only the resilience's own lines.
  log: (line) => {
    if (/ is down| answers again|Stripe budget/.test(line) && lines.length < 50) lines.push(line);
  },
});
process.send?.({ ready: true });
process.on("message", (message: { stop?: boolean }) => {
  if (!message.stop) return;
  void consumer.close().then(() => {
    process.send?.({ lines }, () => process.exit(0));
  });
});
