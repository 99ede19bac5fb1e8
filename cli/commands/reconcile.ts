import { InvalidArgumentError, type Command } from "commander";
import type Stripe from "stripe";
import type { FlowReconcileReport, ReconcileReport } from "../../runtime/operator/index.js";
import { flowChoices } from "../../templates/index.js";
import { refuseTogether, UsageError } from "../errors.js";

interface ReconcileCommandOptions {
  databaseUrl?: string;
  dataDir?: string;
  stripeApiBase?: string;
  limit?: number;
  dryRun?: boolean;
  json?: boolean;
  flow?: string;
}

/** Exit code when billings remain pending with an unknown outcome (so a scheduler can alert); 2 = usage or configuration. */
const stillUnknownExitCode = 3;

export function register(program: Command): void {
  program
    .command("reconcile")
    .description(
      "finish billings left pending by a crash or an unknown Stripe outcome: retry with the same key inside Stripe's 24 h window, " +
        "look the PaymentIntent (charge, invoice) up by customer and metadata after it, charge only when Stripe has none; a meter event " +
        "past the window is reported unverifiable, never re-sent (STRIPE_API_KEY from the environment)",
    )
    .option("--database-url <url>", "PostgreSQL URL of the billing records (default: env DATABASE_URL)")
    .option("--data-dir <dir>", "embedded PGlite data directory instead of PostgreSQL (the consumer's ./.data: must already be a guard database; locked while in use, so stop the consumer first)")
    .option("--stripe-api-base <url>", "Stripe API origin, e.g. http://127.0.0.1:12111 for the sandbox (default: env STRIPE_API_BASE, else api.stripe.com)")
    .option("--limit <n>", "examine at most this many stale billings (default 100)", positiveInteger)
    .option("--dry-run", "look up and report what would be done; charge and record nothing")
    .option("--json", "print the report as JSON")
    .option(
      "--flow <flow>",
      `only this flow: ${flowChoices.join(", ")} (default: all; the default consumer's PaymentIntents and every flow's guard_records)`,
    )
    .addHelpText(
      "after",
      "\nExit codes: 0 done, 1 failed (e.g. Stripe unreachable), 2 usage or configuration (conflicting flags, missing\n" +
        "settings, --data-dir not a guard database or in use by another process), 3 billings still pending with an unknown\n" +
        "outcome, or meter events past the key window that cannot be verified.",
    )
    .action(async (options: ReconcileCommandOptions) => {
      refuseTogether(["--database-url", options.databaseUrl], ["--data-dir", options.dataDir], "the billing records are in one database");
      const databaseUrl = options.databaseUrl ?? (options.dataDir ? undefined : process.env.DATABASE_URL);
      if (!databaseUrl && !options.dataDir) {
        throw new UsageError("reconcile needs the billing database: --database-url URL, env DATABASE_URL, or --data-dir DIR");
      }
      const apiBase = options.stripeApiBase ?? process.env.STRIPE_API_BASE;
      // The runtime loads when the command runs, not for --help or a usage error.
      const [{ Guard }, { BillingGuard }, { builtInFlows, reconcile, reconcileFlows }] = await Promise.all([
        import("../../runtime/index.js"),
        import("../../runtime/guard/index.js"),
        import("../../runtime/operator/index.js"),
      ]);
      // The consumer's way to Stripe, from the consumer's own settings: each period's vault key and its cap.
      const { stripe, expectedPeriodTotalCents } = await reconcilerStripe(process.env, apiBase, options.dryRun ?? false);
      if (options.flow !== undefined && !(options.flow in builtInFlows)) {
        throw new UsageError(`--flow must be one of ${Object.keys(builtInFlows).join(", ")}, got "${options.flow}"`);
      }
      // An existing guard database only: a mistyped --data-dir must not become a fresh, empty one that "reconciles" nothing.
      const connection = databaseUrl ? { databaseUrl } : { dataDir: options.dataDir as string, requireExistingDataDir: true };
      const limit = options.limit === undefined ? {} : { limit: options.limit };
      const dryRun = options.dryRun ?? false;
      // billing_records (the default consumer) first; both share one connection's database.
      let report: ReconcileReport | undefined;
      if (options.flow === undefined || options.flow === "payment-intent") {
        const guard = await BillingGuard.open(connection);
        try {
          report = await reconcile({ guard, stripe, dryRun, ...limit, ...expectedPeriodTotalCents });
        } finally {
          await guard.close();
        }
      }
      const flowGuard = await Guard.open(connection);
      let flows: FlowReconcileReport;
      try {
        flows = await reconcileFlows({ guard: flowGuard, stripe, dryRun, ...limit, ...expectedPeriodTotalCents, ...(options.flow === undefined ? {} : { flow: options.flow }) });
      } finally {
        await flowGuard.close();
      }
      const output = report ? { ...report, flows } : { flows };
      console.log(options.json ? JSON.stringify(output, null, 2) : [report ? describe(report) : undefined, describeFlows(flows)].filter(Boolean).join("\n"));
      if ((report?.stillUnknown ?? 0) > 0 || flows.stillUnknown > 0 || flows.unverifiable > 0 || flows.refused > 0) process.exitCode = stillUnknownExitCode;
    });
}

/**
 * Stripe as the consumer reaches it: with KEYBRAKE_URL and KEYBRAKE_API_KEY through per-period vault keys (capped at
 * BILLING_PERIOD_CAP_CENTS x the vault's margin, as the generated consumer sizes them), else STRIPE_API_KEY (a
 * restricted key). Never a key of the reconciler's own beside the vault's. A dry run mints no vault key (each key is
 * a cap more at the vault, and a dry run changes nothing): it reads with STRIPE_API_KEY when given one, else it plans
 * without asking Stripe, and a look-up it would need is reported still unknown, saying why.
 */
async function reconcilerStripe(env: NodeJS.ProcessEnv, apiBase: string | undefined, dryRun: boolean) {
  const { EnvironmentKeyProvider, KeybrakeKeyProvider } = await import("../../runtime/index.js");
  const { stripeAccess } = await import("../../runtime/stripe/stripe-access.js");
  const vault = env.KEYBRAKE_URL || env.KEYBRAKE_API_KEY;
  if (vault && !(env.KEYBRAKE_URL && env.KEYBRAKE_API_KEY)) throw new UsageError("reconcile through the vault needs both KEYBRAKE_URL and KEYBRAKE_API_KEY");
  if (!vault && !env.STRIPE_API_KEY) {
    throw new UsageError("reconcile needs the consumer's Stripe access: KEYBRAKE_URL and KEYBRAKE_API_KEY (vault keys), or STRIPE_API_KEY (a restricted rk_ key with PaymentIntents read/write)");
  }
  const cap = env.BILLING_PERIOD_CAP_CENTS;
  if (cap !== undefined && !/^[1-9]\d*$/.test(cap)) throw new UsageError(`BILLING_PERIOD_CAP_CENTS must be a positive whole number of cents, got "${cap}"`);
  const expectedPeriodTotalCents = cap === undefined ? {} : { expectedPeriodTotalCents: Number(cap) };
  const readWithEnvironmentKey = !vault || (dryRun && env.STRIPE_API_KEY);
  const keys = readWithEnvironmentKey
    ? new EnvironmentKeyProvider({ apiKey: env.STRIPE_API_KEY as string, warn: (line) => console.error(line) })
    : new KeybrakeKeyProvider({ baseUrl: env.KEYBRAKE_URL as string, apiKey: env.KEYBRAKE_API_KEY as string });
  const access = stripeAccess({ keys, timeoutMs: 30_000, maxNetworkRetries: 2, ...(apiBase ? { apiBase } : {}) });
  if (!dryRun || readWithEnvironmentKey) return { stripe: access, expectedPeriodTotalCents };
  const keyless = keylessStripe("a dry run mints no vault key, so it cannot look this billing up at Stripe: set STRIPE_API_KEY (a restricted key with read access) for the dry run's look-ups");
  return { stripe: { ...access, stripeFor: () => keyless, forPeriod: () => Promise.resolve(keyless) }, expectedPeriodTotalCents };
}

/** A Stripe client without a key: every call fails at once with `reason` (nothing is sent, no key is asked for). */
function keylessStripe(reason: string): Stripe {
  const refuse = (): never => {
    throw new Error(reason);
  };
  const resource = new Proxy(refuse, { get: () => refuse });
  // Not a thenable: it is handed out through a promise.
  return new Proxy({}, { get: (_target, name) => (name === "then" ? undefined : resource) }) as Stripe;
}

function describeFlows(report: FlowReconcileReport): string {
  const lines = [
    `guard_records (invoice, charge, meter-event, team flows): ${report.examined} stale pending record(s) examined`,
    `  completed             ${report.completed}`,
    `  declined              ${report.declined}`,
    `  settled meanwhile     ${report.settledMeanwhile}`,
    `  unverifiable          ${report.unverifiable}`,
    `  refused               ${report.refused}`,
    `  still unknown         ${report.stillUnknown}`,
  ];
  for (const outcome of report.outcomes) {
    const object = outcome.objectId ? ` ${outcome.objectId}` : "";
    const detail = outcome.detail ? ` (${outcome.detail})` : "";
    lines.push(`${outcome.flow} ${outcome.scope} ${JSON.stringify(outcome.key)}: ${outcome.action}${object}${detail}`);
  }
  return lines.join("\n");
}

function describe(report: ReconcileReport): string {
  const lines = [
    `${report.dryRun ? "reconcile (dry run: nothing charged or recorded)" : "reconcile"}: ${report.examined} stale pending billing(s) examined`,
    `  retried with key      ${report.retriedWithKey}`,
    `  recovered from Stripe ${report.recoveredFromStripe}`,
    `  charged after window  ${report.chargedAfterWindow}`,
    `  declined              ${report.declined}`,
    `  settled meanwhile     ${report.settledMeanwhile}`,
    `  still unknown         ${report.stillUnknown}`,
  ];
  for (const outcome of report.outcomes) {
    const intent = outcome.paymentIntentId ? ` ${outcome.paymentIntentId}` : "";
    const detail = outcome.detail ? ` (${outcome.detail})` : "";
    lines.push(`${outcome.customerId} ${outcome.billingPeriod}: ${outcome.action}${intent}${detail}`);
  }
  return lines.join("\n");
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed <= 0) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return parsed;
}
