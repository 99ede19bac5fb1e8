import { Option, type Command } from "commander";
import { allowed } from "../flag-values.js";
import type { AuditFormat, AuditResult } from "../../runtime/audit/index.js";
import { isStripeErrorOfType, stripeErrorIn } from "../../runtime/flows/index.js";
import { consumerVariables, isLiveSecretKey, terminalSafe } from "../../runtime/index.js";
import { CliError, exitCodes, exitCodesHelp, UsageError } from "../exit-codes.js";

interface AuditCommandOptions {
  flow: string;
  since?: number;
  until?: number;
  customer?: string;
  key: string;
  window?: number;
  format: AuditFormat;
  refund?: boolean;
  yes?: boolean;
  refundIds?: string[];
  rate: number;
  stripeApiBase?: string;
}

/** --window's default, shown in its help as 1h. */
const defaultWindowSeconds = 3_600;

const flowNames = ["paymentintents", "charges", "invoices", "all"] as const;

export function register(program: Command): void {
  program
    .command("audit")
    .description(
      "find the customers a Stripe account charged twice for one thing (PaymentIntents, Charges, invoices), and refund the duplicates " +
        "safely (STRIPE_API_KEY from the environment: a restricted read key, rk_..., by default; write rights to Refunds only with --refund)",
    )
    .addOption(new Option("--flow <flow>", "which payments to audit").choices(flowNames).default("all"))
    .option("--since <date>", "payments created on or after this date (YYYY-MM-DD or ISO 8601, UTC)", unixSeconds)
    .option("--until <date>", "payments created before this date", unixSeconds)
    .option("--customer <id>", "only this customer (cus_...)")
    .option("--key <path>", "where the business key lives on each payment: two payments with the same key, currency and amount are a certain duplicate", "metadata.idempotency_key")
    .option("--window <duration>", "payments without the key: same customer, currency and amount within this of the first are a likely duplicate (e.g. 30m, 1h, 2d; default: 1h)", duration)
    .addOption(new Option("--format <format>", "output").choices(["text", "json", "csv"]).default("text"))
    .option("--refund", "refund every duplicate of the certain groups in full (reason duplicate); without --yes only prints what it would do")
    .option("--yes", "with --refund: make the refunds")
    .option("--refund-ids <ids>", "with --refund: also refund these likely duplicates (comma-separated payment ids)", idList)
    .option("--rate <n>", "Stripe requests per second at most (Stripe allows 25/s per endpoint, 100/s per live account)", positiveNumber, 10)
    .option("--stripe-api-base <url>", "Stripe API origin, e.g. http://127.0.0.1:12111 for the sandbox (default: env STRIPE_API_BASE, else api.stripe.com)")
    .addHelpText(
      "after",
      exitCodesHelp({
        0: "no duplicate left: none found, or --refund --yes refunded every one",
        1: "duplicates left to refund (likely ones not named with --refund-ids, failed refunds) or held by a dispute",
        2: "or an access error: no STRIPE_API_KEY, a key Stripe refuses or lacks permission, Stripe unreachable",
      }) +
        "\n\n" +
        "Refunds are idempotent: each uses the key chargeguard-audit-refund:<duplicate id>, and a duplicate refunded in\n" +
        "full is reported as resolved, so a second run refunds nothing twice and an interrupted one finishes the rest.\n" +
        "Disputes: a payment whose dispute was lost is not money taken (its twin is no longer a duplicate); a group with an\n" +
        "open or won dispute is reported apart with what to do and never refunded (exit 1 until a person settles it).\n" +
        "The key needs read access to Disputes when the account has any.\n" +
        "Keys: without --refund the audit only reads, so it runs on a restricted key (rk_live_...) with read access to\n" +
        "PaymentIntents, Charges, Invoices and Disputes and refuses a live secret key (sk_live_...); --refund asks for write\n" +
        "access to Refunds as well. A live key goes only to https://api.stripe.com or an https origin listed in\n" +
        "STRIPE_ALLOWED_ORIGINS; --stripe-api-base over plain http is for loopback and test keys only (the sandbox).",
    )
    .action(async (options: AuditCommandOptions) => {
      if (options.yes && !options.refund) throw new UsageError("--yes only confirms --refund");
      if (options.refundIds && !options.refund) throw new UsageError("--refund-ids needs --refund");
      if (options.since !== undefined && options.until !== undefined && options.since >= options.until) throw new UsageError("--since must be before --until");
      // The consumer's variables, trimmed: an env file's " sk_live_..." is a live secret key (as key-destination.ts reads it).
      const { STRIPE_API_KEY: apiKey, STRIPE_API_BASE: envApiBase } = consumerVariables();
      if (!apiKey) throw new UsageError("audit needs STRIPE_API_KEY in the environment (a restricted key with read access; refunds need write access to Refunds)");
      if (isLiveSecretKey(apiKey) && !options.refund) {
        // No key-shaped text in the message: the CLI's error redaction would garble it.
        throw new UsageError("audit only reads without --refund: give a restricted live key (rk_...) with read access, not a live secret key (sk_...) with every write right");
      }
      const keyPath = options.key.split(".");
      if (keyPath.some((segment) => segment === "")) throw new UsageError(`--key must be a dotted path such as metadata.usage_id, got "${options.key}"`);
      const apiBase = options.stripeApiBase ?? envApiBase;
      // The engine (and the Stripe SDK) load when the command runs, not for --help or a usage error.
      const { auditAccount, firstAnswerWithinMs, formatAudit, summarize, TokenBucket } = await import("../../runtime/audit/index.js");
      const progress = progressLine();
      let result: AuditResult;
      try {
        result = await auditAccount({
          apiKey,
          ...(apiBase ? { apiBase } : {}),
          budget: new TokenBucket(options.rate),
          flows: options.flow === "all" ? ["paymentintents", "charges", "invoices"] : [options.flow as "paymentintents" | "charges" | "invoices"],
          keyPath,
          windowSeconds: options.window ?? defaultWindowSeconds,
          ...(options.since === undefined ? {} : { since: options.since }), ...(options.until === undefined ? {} : { until: options.until }),
          ...(options.customer === undefined ? {} : { customer: options.customer }),
          ...(options.refund ? { refund: options.yes ? ("issue" as const) : ("plan" as const) } : {}),
          ...(options.refundIds ? { refundIds: new Set(options.refundIds) } : {}),
          onProgress: (state) => progress.show(`audit: ${state.read} ${state.flow === "invoices" ? "objects" : "payments"} read (${state.flow}), ${state.requests} requests`),
        });
      } catch (error) {
        progress.clear();
        throw accessError(error, { origin: apiBase ?? "https://api.stripe.com", withinMs: firstAnswerWithinMs });
      }
      progress.clear();
      warnUnkeyed(result, options.key);
      // Customer ids and business keys are bytes from the account: control characters escaped (CSV cells: csv-cell.ts).
      console.log(terminalSafe(formatAudit(result, options.format), { multiline: true }));
      process.exitCode = summarize(result).duplicates_left > 0 || result.disputed.length > 0 ? exitCodes.failed : exitCodes.ok;
    });
}

/**
 * Stripe refusing the key or its permissions, or not answering: an access error (exit 2) naming the cause. By the
 * error's `type` (stripe-error.ts): the audit's client comes from the runtime's CommonJS copy of the SDK, whose
 * classes an `import("stripe")` here (the ESM build) would not match.
 */
function accessError(error: unknown, stripe: { origin: string; withinMs: number }): unknown {
  if (isStripeErrorOfType(error, "StripeConnectionError")) {
    // Which origin, and where it was set: a leftover sandbox port is the usual cause.
    const set = stripe.origin === "https://api.stripe.com" ? "" : " (set by --stripe-api-base or STRIPE_API_BASE)";
    // The SDK's own words name its 30 s timeout, not the deadline that cut the try: the socket's code says more.
    const code = (error as { detail?: { code?: unknown } }).detail?.code;
    const cause = typeof code === "string" && code !== "ETIMEDOUT" ? code : "timed out";
    return new CliError(`Stripe unreachable at ${stripe.origin}${set}: no answer within ${stripe.withinMs / 1000} s (${cause})`, exitCodes.usage);
  }
  if (isStripeErrorOfType(error, "StripeAuthenticationError")) return new CliError(`Stripe refused STRIPE_API_KEY: ${error.message}`, exitCodes.usage);
  if (isStripeErrorOfType(error, "StripePermissionError")) return new CliError(`STRIPE_API_KEY lacks a permission the audit needs: ${error.message}`, exitCodes.usage);
  const answer = stripeErrorIn(error);
  if (answer) return new CliError(`Stripe could not be read (${answer.type}${answer.statusCode ? ` ${answer.statusCode}` : ""}): ${answer.message}`, exitCodes.usage);
  return error;
}

/** A key path no payment carries finds nothing certain, silently: said on stderr (JSON and CSV stay clean). */
function warnUnkeyed(result: AuditResult, key: string): void {
  if (result.examined === 0 || result.keyed > 0) return;
  console.error(
    `chargeguard audit: warning: none of the ${result.examined} payment(s) read carries --key ${key}: no duplicate can be certain, only likely (same amount within --window); ` +
      "give the path your consumer writes its key to (chargeguard's: metadata.idempotency_key)",
  );
}

/** One self-overwriting status line on a terminal (stderr), nothing when piped. */
function progressLine(): { show(text: string): void; clear(): void } {
  const tty = process.stderr.isTTY === true;
  let last = 0;
  let shown = false;
  return {
    show(text) {
      const now = Date.now();
      if (!tty || now - last < 250) return;
      last = now;
      shown = true;
      process.stderr.write(`\r${text.slice(0, (process.stderr.columns ?? 80) - 1)}\u001b[K`);
    },
    clear() {
      if (shown) process.stderr.write("\r\u001b[K");
    },
  };
}

function unixSeconds(value: string): number {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : new Date(value);
  if (Number.isNaN(date.getTime())) throw allowed("a date such as 2026-10-01 or 2026-10-01T12:00:00Z (UTC)");
  return Math.floor(date.getTime() / 1000);
}

const units: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

function duration(value: string): number {
  const match = /^(\d+)([smhd])$/.exec(value);
  if (!match) throw allowed("a duration such as 90s, 30m, 1h or 2d");
  const seconds = Number(match[1]) * (units[match[2] as string] as number);
  if (seconds <= 0) throw allowed("a duration longer than 0, such as 90s, 30m, 1h or 2d");
  return seconds;
}

function positiveNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw allowed("a number greater than 0");
  return parsed;
}

function idList(value: string): string[] {
  const ids = value.split(",").map((id) => id.trim()).filter((id) => id !== "");
  if (ids.length === 0) throw allowed("payment ids separated by commas, e.g. pi_1,pi_2");
  return ids;
}
