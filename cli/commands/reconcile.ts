import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import type { ReconcileReport } from "../../runtime/operator/index.js";
import { consumerVariables, terminalSafe, type ConsumerVariables } from "../../runtime/index.js";
import { flowChoices } from "../../templates/index.js";
import { exitCodesHelp, refuseTogether, UsageError } from "../exit-codes.js";
import { wholeNumber } from "../flag-values.js";
import { secretFlagValue } from "../secret-flag.js";

interface ReconcileCommandOptions {
  databaseUrl?: string;
  databaseUrlFile?: string;
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
    .option("--database-url <url>", "PostgreSQL URL of the billing records, without a password (one with a password is refused: it would show in ps; default: env DATABASE_URL)")
    .option("--database-url-file <path>", "read the PostgreSQL URL from this file (e.g. a mounted secret)")
    .option("--data-dir <dir>", "embedded PGlite data directory instead of PostgreSQL (must already be a guard database; locked while in use, so stop the consumer first; default with no database named: the consumer's ./.data/billing when it exists)")
    .option("--stripe-api-base <url>", "Stripe API origin, e.g. http://127.0.0.1:12111 for the sandbox (default: env STRIPE_API_BASE, else api.stripe.com)")
    .option("--limit <n>", "examine at most this many stale billings (default 100)", wholeNumber(1))
    .option("--dry-run", "look up and report what would be done; charge and record nothing")
    .option("--json", "print the report as JSON")
    .option(
      "--flow <flow>",
      `only this flow: ${flowChoices.join(", ")} (default: all)`,
    )
    .addHelpText(
      "after",
      exitCodesHelp({
        0: "done",
        1: "failed (e.g. Stripe unreachable)",
        3: "billings still pending with an unknown outcome, or meter events past the key window that cannot be verified", 2: "--data-dir not a guard database or in use by another process" }),
    )
    .action(async (options: ReconcileCommandOptions) => {
      const givenUrl = secretFlagValue({ flag: "--database-url", envName: "DATABASE_URL", value: options.databaseUrl, file: options.databaseUrlFile });
      refuseTogether(["--database-url", givenUrl], ["--data-dir", options.dataDir], "the billing records are in one database");
      // The consumer's own variables, read as the consumer reads them (the runtime's one reader of the environment).
      const env = consumerVariables();
      const databaseUrl = givenUrl ?? (options.dataDir ? undefined : env.DATABASE_URL);
      const dataDir = options.dataDir ?? (databaseUrl ? undefined : consumerDataDir());
      if (!databaseUrl && !dataDir) {
        throw new UsageError(
          `reconcile needs the billing database: --database-url URL, env DATABASE_URL, or --data-dir DIR (run in the consumer's directory, its ./${consumerDataDirPath} is taken)`,
        );
      }
      const apiBase = options.stripeApiBase ?? env.STRIPE_API_BASE;
      // The runtime loads when the command runs, not for --help or a usage error.
      const [{ Guard }, { builtInFlows, reconcile }] = await Promise.all([import("../../runtime/index.js"), import("../../runtime/operator/index.js")]);
      if (options.flow !== undefined && !(options.flow in builtInFlows)) {
        throw new UsageError(`--flow must be one of ${Object.keys(builtInFlows).join(", ")}, got "${options.flow}"`);
      }
      // The consumer's way to Stripe, from the consumer's own settings: each period's vault key and its cap.
      const { stripe, expectedPeriodTotalCents } = await reconcilerStripe(env, apiBase);
      // An existing guard database only: a mistyped --data-dir must not become a fresh, empty one that "reconciles" nothing.
      const connection = databaseUrl ? { databaseUrl } : { dataDir: dataDir as string, requireExistingDataDir: true };
      const guard = await Guard.open(connection);
      let leased: LeasedBilling[];
      let report: ReconcileReport;
      try {
        report = await reconcile({
          guard,
          stripe,
          dryRun: options.dryRun ?? false,
          ...(options.limit === undefined ? {} : { limit: options.limit }),
          ...expectedPeriodTotalCents,
          ...(options.flow === undefined ? {} : { flow: options.flow }),
        });
        // What the run left to a lease not yet lapsed (its own claims end released): a consumer that crashed holds
        // its billing until then, and "0 examined" alone read as nothing left to do.
        leased = await leasedBillings(guard, options);
      } finally {
        await guard.close();
      }
      // Keys and details are bytes from events and Stripe: each line terminal-safe (JSON stays JSON).
      console.log(options.json ? terminalSafe(JSON.stringify({ ...report, leased }, null, 2), { multiline: true }) : describe(report, leased));
      if (report.stillUnknown > 0 || report.unverifiable > 0 || report.refused > 0) process.exitCode = stillUnknownExitCode;
    });
}
/** Where a generated consumer keeps its embedded database without DATABASE_URL (its settings' `dataDir`). */
const consumerDataDirPath = ".data/billing";

/**
 * The consumer's embedded database when the command runs in its directory and names no database: said on stderr (so
 * --json stays JSON), since which database was reconciled matters.
 */
function consumerDataDir(): string | undefined {
  if (!existsSync(path.resolve(consumerDataDirPath))) return undefined;
  process.stderr.write(
    `chargeguard reconcile: no database named: reconciling the consumer's embedded database ./${consumerDataDirPath} (stop the consumer first; --data-dir, --database-url or DATABASE_URL name another)\n`,
  );
  return consumerDataDirPath;
}

/**
 * Stripe as the consumer reaches it: with KEYBRAKE_URL and KEYBRAKE_API_KEY through per-period vault keys (capped at
 * BILLING_PERIOD_CAP_CENTS x the vault's margin, as the generated consumer sizes them), else STRIPE_API_KEY (a
 * restricted key). Never a key of the reconciler's own beside the vault's.
 */
async function reconcilerStripe(env: ConsumerVariables, apiBase: string | undefined) {
  const { ConfigurationError, EnvironmentKeyProvider, KeybrakeKeyProvider, keyDestinationProblem } = await import("../../runtime/index.js");
  const { stripeAccess } = await import("../../runtime/operator/index.js");
  const vault = env.KEYBRAKE_URL || env.KEYBRAKE_API_KEY;
  if (vault && !(env.KEYBRAKE_URL && env.KEYBRAKE_API_KEY)) throw new UsageError("reconcile through the vault needs both KEYBRAKE_URL and KEYBRAKE_API_KEY");
  if (!vault && !env.STRIPE_API_KEY) {
    throw new UsageError("reconcile needs the consumer's Stripe access: KEYBRAKE_URL and KEYBRAKE_API_KEY (vault keys), or STRIPE_API_KEY (a restricted rk_ key with PaymentIntents read/write)");
  }
  const cap = env.BILLING_PERIOD_CAP_CENTS;
  if (cap !== undefined && !/^[1-9]\d*$/.test(cap)) throw new UsageError("BILLING_PERIOD_CAP_CENTS must be a positive whole number of cents");
  // The environment's key is known now: a destination it must not go to is refused before any record is touched.
  const destinationProblem = vault ? undefined : keyDestinationProblem(env.STRIPE_API_KEY as string, apiBase);
  if (destinationProblem !== undefined) throw new ConfigurationError(destinationProblem);
  const keys = vault
    ? new KeybrakeKeyProvider({ baseUrl: env.KEYBRAKE_URL as string, apiKey: env.KEYBRAKE_API_KEY as string })
    : new EnvironmentKeyProvider({ apiKey: env.STRIPE_API_KEY as string, warn: (line) => console.error(line) });
  return {
    stripe: stripeAccess({ keys, timeoutMs: 30_000, maxNetworkRetries: 2, ...(apiBase ? { apiBase } : {}) }),
    expectedPeriodTotalCents: cap === undefined ? {} : { expectedPeriodTotalCents: Number(cap) },
  };
}

function describe(report: ReconcileReport, leased: LeasedBilling[]): string {
  const lines = [
    `${report.dryRun ? "reconcile (dry run: nothing charged or recorded)" : "reconcile"}: ${report.examined} stale pending billing(s) examined`,
    `  completed             ${report.completed}`,
    `  declined              ${report.declined}`,
    `  settled meanwhile     ${report.settledMeanwhile}`,
    `  unverifiable          ${report.unverifiable}`,
    `  refused               ${report.refused}`,
    `  still unknown         ${report.stillUnknown}`,
  ];
  if (leased.length > 0) {
    const last = leased.map((record) => record.lockedUntil).sort().at(-1);
    lines.push(`  skipped (lease held)  ${leased.length}: a consumer may still be billing them; rerun after ${last} if they are still pending`);
    for (const record of leased) lines.push(`${record.flow} ${record.scope} ${JSON.stringify(record.key)}: lease held until ${record.lockedUntil}`);
  }
  for (const outcome of report.outcomes) {
    const object = outcome.objectId ? ` ${outcome.objectId}` : "";
    const detail = outcome.detail ? ` (${outcome.detail})` : "";
    lines.push(`${outcome.flow} ${outcome.scope} ${JSON.stringify(outcome.key)}: ${outcome.action}${object}${detail}`);
  }
  return lines.map((line) => terminalSafe(line)).join("\n");
}

/** A pending billing the run left alone: a consumer (or one that crashed) holds its lease until `lockedUntil`. */
interface LeasedBilling {
  scope: string;
  key: Record<string, string | number>;
  flow: string;
  lockedUntil: string;
}

async function leasedBillings(guard: import("../../runtime/guard/guard.js").Guard, options: ReconcileCommandOptions): Promise<LeasedBilling[]> {
  const records = await guard.leasedPending({
    ...(options.limit === undefined ? {} : { limit: options.limit }),
    ...(options.flow === undefined ? {} : { flow: options.flow }),
  });
  return records.map((record) => ({ scope: record.scope, key: record.key, flow: record.flow, lockedUntil: record.lockedUntil?.toISOString() ?? "" }));
}
