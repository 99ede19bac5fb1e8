// The operator's reconciler as a model command: one `reconcile` run beside the fleet (a cron firing while replicas
// bill), on the fleet's database (through the same fault proxy on PostgreSQL) and the clock as it is, so it takes only
// records whose lease has lapsed; the guard's lease keeps it and a replica from running one record at once. A run
// that fails (the database down) is logged and left to the next cron run, as an operator's cron does.
import { EnvironmentKeyProvider, Guard } from "../../../runtime/index.js";
import { reconcile, stripeAccess, type StripeAccess } from "../../../runtime/operator/index.js";
import { DEFAULT_STRIPE_BUDGET } from "../../../tuning/queue-tuning.js";
import { modelSpendCaps, modelTimings, type ModelWorld } from "./model-world.js";

/** A guard on the run's database as an operator's tool opens one (through the fault proxy on PostgreSQL). */
export function openModelGuard(world: ModelWorld): Promise<Guard> {
  const { sandbox, store } = world;
  const database =
    store.kind === "pglite"
      ? { pglite: store.pglite }
      : { databaseUrl: store.proxy.urlFor(store.url), databaseTimeouts: { connectionTimeoutMillis: 1_000, query_timeout: 1_500, statement_timeout: 1_500 } };
  return Guard.open({
    ...database,
    clock: sandbox.clock,
    leaseMs: modelTimings.leaseMs,
    periodCapCents: modelSpendCaps.defaultCapCents,
    periodCaps: Object.fromEntries(modelSpendCaps.currencies.map((currency) => [currency, modelSpendCaps.capCents])),
  });
}

/** The operator's way to Stripe, as the template ships the client (the SDK's retries on). */
export function modelStripeAccess(world: ModelWorld): StripeAccess {
  return stripeAccess({
    keys: new EnvironmentKeyProvider({ apiKey: "rk_test_sandbox", warn: () => undefined }),
    timeoutMs: modelTimings.stripeTimeoutMs,
    maxNetworkRetries: DEFAULT_STRIPE_BUDGET.maxNetworkRetries,
    apiBase: world.sandbox.stripe.apiBase,
  });
}

export async function reconcileBesideFleet(world: ModelWorld): Promise<void> {
  let guard: Guard | undefined;
  try {
    guard = await openModelGuard(world);
    const report = await reconcile({ guard, stripe: modelStripeAccess(world), clock: world.sandbox.clock, limit: 50, owner: `model-${world.run}-reconciler` });
    world.log(`model: reconciler beside the fleet: examined ${report.examined}, completed ${report.completed}, declined ${report.declined}, still unknown ${report.stillUnknown}`);
  } catch (error) {
    world.log(`model: reconciler beside the fleet failed (the next cron run retries): ${String(error)}`);
  } finally {
    await guard?.close();
  }
}
