// The operator's reconciler as a model command: one `reconcile` run beside the fleet (a cron firing while replicas
// bill), on the fleet's database (through the same fault proxy on PostgreSQL) and the clock as it is, so it takes only
// records whose lease has lapsed; the guard's lease keeps it and a replica from running one record at once. A run
// that fails (the database down) is logged and left to the next cron run, as an operator's cron does.
import { EnvironmentKeyProvider, Guard } from "../../../runtime/index.js";
import { reconcile, stripeAccess } from "../../../runtime/operator/index.js";
import { DEFAULT_STRIPE_BUDGET } from "../../../tuning/queue-tuning.js";
import { modelSpendCaps, modelTimings, type ModelWorld } from "./model-world.js";

export async function reconcileBesideFleet(world: ModelWorld): Promise<void> {
  const { sandbox, store } = world;
  const database =
    store.kind === "pglite"
      ? { pglite: store.pglite }
      : { databaseUrl: store.proxy.urlFor(store.url), databaseTimeouts: { connectionTimeoutMillis: 1_000, query_timeout: 1_500, statement_timeout: 1_500 } };
  let guard: Guard | undefined;
  try {
    guard = await Guard.open({
      ...database,
      clock: sandbox.clock,
      leaseMs: modelTimings.leaseMs,
      periodCapCents: modelSpendCaps.defaultCapCents,
      periodCaps: Object.fromEntries(modelSpendCaps.currencies.map((currency) => [currency, modelSpendCaps.capCents])),
    });
    const stripe = stripeAccess({
      keys: new EnvironmentKeyProvider({ apiKey: "rk_test_sandbox", warn: () => undefined }),
      timeoutMs: modelTimings.stripeTimeoutMs,
      maxNetworkRetries: DEFAULT_STRIPE_BUDGET.maxNetworkRetries,
      apiBase: sandbox.stripe.apiBase,
    });
    const report = await reconcile({ guard, stripe, clock: sandbox.clock, limit: 50, owner: `model-${world.run}-reconciler` });
    world.log(`model: reconciler beside the fleet: examined ${report.examined}, completed ${report.completed}, declined ${report.declined}, still unknown ${report.stillUnknown}`);
  } catch (error) {
    world.log(`model: reconciler beside the fleet failed (the next cron run retries): ${String(error)}`);
  } finally {
    await guard?.close();
  }
}
