// A contender's own sandbox: a Service Bus emulator with the billing queue (the consumer's SAS rule enforced), a
// Stripe emulator on the shared clock, a fresh PGlite, the harness's Service Bus client and the contender's telemetry.
// Each is handed to the cleanup the moment it is started.
import type { PGlite } from "@electric-sql/pglite";
import { ServiceBusClient } from "@azure/service-bus";
import { consumerQueueRights } from "../../tuning/index.js";
import {
  startServiceBusEmulator,
  startStripeEmulator,
  type AdjustableClock,
  type ServiceBusEmulator,
  type StripeEmulator,
} from "../../sandbox/index.js";
import type { BoundedCleanup } from "./bounded-cleanup.js";
import type { FreshDatabases } from "../databases/fresh-databases.js";
import type { HarnessSettings } from "../run/settings.js";
import { ContenderTelemetry } from "../measure/telemetry-reader.js";

export const contenderQueue = "billing";
/** The SAS rule every replica connects with: exactly the rights BillingQueue deploys for a consumer. */
export const consumerRule = "consumer";
/** Obviously fake: the sandbox takes any restricted test key. */
export const sandboxStripeKey = "rk_test_sandbox";

export interface ContenderSandbox {
  servicebus: ServiceBusEmulator;
  stripe: StripeEmulator;
  /** Still on its way (in a worker thread its template may come from the parent): await it once the rest is set up. */
  database: Promise<PGlite>;
  client: ServiceBusClient;
  /** The contender's own metrics (consumers on chargeguard's runtime report through the context's meter provider). */
  telemetry: ContenderTelemetry;
}

export async function startContenderSandbox(
  settings: HarnessSettings,
  databases: FreshDatabases,
  clock: AdjustableClock,
  cleanup: BoundedCleanup,
): Promise<ContenderSandbox> {
  const servicebus = await startServiceBusEmulator({
    queues: {
      [contenderQueue]: {
        lockDurationMs: settings.lockDurationMs,
        maxDeliveryCount: settings.maxDeliveryCount,
        duplicateDetectionWindowMs: settings.duplicateDetectionWindowMs,
        deadLetteringOnMessageExpiration: true,
      },
    },
    authorizationRules: { [consumerRule]: { queue: contenderQueue, rights: consumerQueueRights.sasRights } },
    port: 0,
  });
  cleanup.add("Service Bus emulator", () => servicebus.stop());
  const stripe = await startStripeEmulator({ clock });
  cleanup.add("Stripe emulator", () => stripe.stop());
  // The database comes last in the setup: in a worker thread its template may still be on its way from the parent.
  const database = databases.create();
  database.catch(() => {}); // awaited by the caller; observed now so a failure meanwhile is not an unhandled rejection
  cleanup.add("database", async () => (await database).close());
  const client = new ServiceBusClient(servicebus.connectionString);
  cleanup.add("harness client", () => client.close());
  const telemetry = new ContenderTelemetry();
  cleanup.add("telemetry", () => telemetry.shutdown());
  return { servicebus, stripe, database, client, telemetry };
}
