import { InvalidArgumentError, type Command } from "commander";
import { BillingGuard, reconcile, type ReconcileReport, createStripeClient } from "../../runtime/index.js";

interface ReconcileCommandOptions {
  databaseUrl?: string;
  dataDir?: string;
  stripeApiBase?: string;
  limit?: number;
  dryRun?: boolean;
  json?: boolean;
}

/** Exit code when billings remain pending with an unknown outcome (so a scheduler can alert). */
const stillUnknownExitCode = 3;

export function register(program: Command): void {
  program
    .command("reconcile")
    .description(
      "finish billings left pending by a crash or an unknown Stripe outcome: retry with the same key inside Stripe's 24 h window, " +
        "look the PaymentIntent up by customer and metadata after it, charge only when Stripe has none (STRIPE_API_KEY from the environment)",
    )
    .option("--database-url <url>", "PostgreSQL URL of the billing records (default: env DATABASE_URL)")
    .option("--data-dir <dir>", "embedded PGlite data directory instead of PostgreSQL (e.g. the consumer's ./.data; PGlite is single-process: stop the consumer first)")
    .option("--stripe-api-base <url>", "Stripe API origin, e.g. http://127.0.0.1:12111 for the sandbox (default: env STRIPE_API_BASE, else api.stripe.com)")
    .option("--limit <n>", "examine at most this many stale billings (default 100)", positiveInteger)
    .option("--dry-run", "look up and report what would be done; charge and record nothing")
    .option("--json", "print the report as JSON")
    .action(async (options: ReconcileCommandOptions) => {
      const databaseUrl = options.databaseUrl ?? (options.dataDir ? undefined : process.env.DATABASE_URL);
      if (!databaseUrl && !options.dataDir) {
        throw new Error("reconcile needs the billing database: --database-url URL, env DATABASE_URL, or --data-dir DIR");
      }
      const apiKey = process.env.STRIPE_API_KEY;
      if (!apiKey) throw new Error("reconcile needs STRIPE_API_KEY in the environment (a restricted rk_ key with PaymentIntents read/write)");
      const apiBase = options.stripeApiBase ?? process.env.STRIPE_API_BASE;
      const stripe = createStripeClient({ apiKey, timeoutMs: 30_000, maxNetworkRetries: 2, ...(apiBase ? { apiBase } : {}) });
      const guard = await BillingGuard.open(databaseUrl ? { databaseUrl } : { dataDir: options.dataDir as string });
      try {
        const report = await reconcile({
          guard,
          stripe,
          dryRun: options.dryRun ?? false,
          ...(options.limit === undefined ? {} : { limit: options.limit }),
        });
        console.log(options.json ? JSON.stringify(report, null, 2) : describe(report));
        if (report.stillUnknown > 0) process.exitCode = stillUnknownExitCode;
      } finally {
        await guard.close();
      }
    });
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
