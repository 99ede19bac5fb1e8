// `chargeguard new consumer <dir>` and `npm create chargeguard`: copies templates/files/consumer into a new
// directory and fills in its few placeholders (create-vite style: the template files are the project, readable
// as they are). Refuses a non-empty directory and invalid names, each with a message naming the problem.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ChargeguardError } from "../errors/index.js";
import { flowNames, TuningError } from "../tuning/index.js";
import { currencyProblem, packageNameProblem, queueNameProblem } from "./names.js";
import { queueBudgetFile, queueBudgetPath, renderQueueBudget, type QueueBudgetFile, type StackQueueBudget } from "./queue-budget.js";
import { databaseChoices, withDatabasePackages, type DatabaseChoice } from "./database-packages.js";
import { packInto, vendorProblem } from "./vendor.js";
import { runningChargeguard } from "./dependency-source.js";
import { telemetryChoices, telemetryLayer, telemetryReadmeRow, withTelemetryPackages, type TelemetryChoice } from "./telemetry-choice.js";
import { billingIdentityProblem, type BillingIdentityChoice, flowBillingIdentities, identityPlaceholders } from "./billing-identity.js";

export const vaultChoices = ["env", "keybrake"] as const;
/** The Stripe billing flows a project can be generated for (the runtime's flow adapters); the first is the default. */
export const flowChoices = flowNames;
export type VaultChoice = (typeof vaultChoices)[number];
export type FlowChoice = (typeof flowChoices)[number];

export interface ScaffoldOptions {
  /** Where the project goes; created if missing, refused if not empty. */
  directory: string;
  /** npm package name of the new project. */
  name: string;
  /** The Service Bus queue it consumes. */
  queue: string;
  /** ISO 4217 lower case; default "usd". */
  currency?: string;
  /** Embedded PGlite when DATABASE_URL is absent, or PostgreSQL only; default "pglite". */
  database?: DatabaseChoice;
  /** Stripe key from STRIPE_API_KEY, or per-period vault keys from a Keybrake-compatible proxy; default "env". */
  vault?: VaultChoice;
  /**
   * The Stripe billing flow; default "payment-intent". Another flow writes its Stripe calls into the project's
   * `src/flow.ts` and its event schema into `src/event.ts` (templates/files/flows), wired through startBillingConsumer.
   */
  flow?: FlowChoice;
  /** Where the runtime's telemetry goes: Azure Monitor (default), OTLP, or nowhere; only the chosen exporter is installed. */
  telemetry?: TelemetryChoice;
  /**
   * What identifies one billing: the usage event's own `usageId`, or its customer and billing period (one aggregated
   * billing per month); default: the flow's first choice in `flowBillingIdentities` (templates/billing-identity.ts).
   * Written into the event schema (`src/event.ts`), the record's key and the Stripe idempotency key, and the README.
   */
  billingIdentity?: BillingIdentityChoice;
  /**
   * A local chargeguard checkout to depend on through `file:` (offline use, our tests). Relative paths are relative
   * to the new project's directory, as npm reads them.
   */
  link?: string;
  /**
   * The queue's latency budget from a stack config (`--stack`), written to `src/queue-budget.json`; absent:
   * chargeguard's default Stripe budget, and the file says how to take the stack's.
   */
  stackBudget?: StackQueueBudget;
  /**
   * A built chargeguard checkout to pack into the project's vendor/ (`file:vendor/*.tgz` dependencies, copied into
   * the image): installs and image builds need no registry that serves chargeguard. Relative to the working directory.
   */
  vendor?: string;
}

export interface ScaffoldResult {
  directory: string;
  /** Written files, relative to `directory`, sorted. */
  files: string[];
  /** What was written to `src/queue-budget.json`. */
  queueBudget: QueueBudgetFile;
  /** The flow generated (the option, else the stack's for the queue, else payment-intent). */
  flow: FlowChoice;
  /** What identifies one billing in the generated project. */
  billingIdentity: BillingIdentityChoice;
}

/** The registry range when neither linked nor vendored: this chargeguard's own version (both packages share it). */
const publishedRange = (): string => `^${runningChargeguard().version}`;

export class ScaffoldError extends ChargeguardError {
  override readonly name = "ScaffoldError";
}

export async function scaffoldConsumer(options: ScaffoldOptions): Promise<ScaffoldResult> {
  const settings = checkOptions(options);
  const directory = path.resolve(options.directory);
  await refuseNonEmpty(directory);

  const sources = await templateSources(settings.flow, settings.billingIdentity, settings.telemetry);
  const written: string[] = [];
  if (options.vendor !== undefined) {
    const packed = await packInto(options.vendor, directory);
    settings.chargeguard = packed.chargeguard;
    settings.eslintPlugin = packed.eslintPlugin;
    settings.vendored = true;
    written.push(...(await readdir(path.join(directory, "vendor"))).map((file) => `vendor/${file}`));
  }
  for (const [relative, source] of [...sources].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const target = path.join(directory, outputName(relative));
    await mkdir(path.dirname(target), { recursive: true });
    const filled = fillPlaceholders(await readFile(source, "utf8"), settings);
    const text = relative === "package.json" ? withTelemetryPackages(withDatabasePackages(filled, settings.database, consumerTemplateRoot()), settings.telemetry) : filled;
    await writeFile(target, text);
    written.push(outputName(relative));
  }
  // Data, not a template: the queue's budget as the stack config (or the default) gives it.
  await writeFile(path.join(directory, queueBudgetPath), renderQueueBudget(settings.queueBudget));
  written.push(queueBudgetPath);
  return { directory, files: written.sort(), queueBudget: settings.queueBudget, flow: settings.flow, billingIdentity: settings.billingIdentity };
}

interface Settings {
  name: string;
  queue: string;
  currency: string;
  database: DatabaseChoice;
  vault: VaultChoice;
  flow: FlowChoice;
  telemetry: TelemetryChoice;
  billingIdentity: BillingIdentityChoice;
  chargeguard: string;
  eslintPlugin: string;
  queueBudget: QueueBudgetFile;
  /** The packages are packed into vendor/ (the image copies it before installing). */
  vendored: boolean;
}

function checkOptions(options: ScaffoldOptions): Settings {
  const currency = options.currency ?? "usd";
  const database = options.database ?? "pglite";
  const vault = options.vault ?? "env";
  const telemetry = options.telemetry ?? "azure-monitor";
  // A stack tunes each queue for its flow's Stripe calls: the project takes that flow unless told, and may not differ.
  const stackFlow = options.stackBudget?.flow;
  const flow = options.flow ?? stackFlow ?? "payment-intent";
  const billingIdentity = options.billingIdentity ?? flowBillingIdentities[flow]?.[0] ?? "usage-event";
  const problems = [
    stackFlow !== undefined && flow !== stackFlow
      ? `--flow ${flow}: stack ${options.stackBudget?.stack ?? ""} tunes queue ${options.queue} for the ${stackFlow} flow (its queues[].flow sizes the lock, grace period and replicas by the flow's Stripe calls): generate with --flow ${stackFlow}, or set the queue's flow in the stack`
      : undefined,
    packageNameProblem(options.name),
    queueNameProblem(options.queue),
    currencyProblem(currency),
    databaseChoices.includes(database) ? undefined : `--db must be one of ${databaseChoices.join(", ")}, got "${database}"`,
    vaultChoices.includes(vault) ? undefined : `--vault must be one of ${vaultChoices.join(", ")}, got "${vault}"`,
    flowChoices.includes(flow) ? undefined : `--flow must be one of ${flowChoices.join(", ")}, got "${flow}"`,
    telemetryChoices.includes(telemetry) ? undefined : `--telemetry must be one of ${telemetryChoices.join(", ")}, got "${telemetry}"`,
    flowChoices.includes(flow) ? billingIdentityProblem(flow, billingIdentity) : undefined,
    // The vault key's allowed endpoints are PaymentIntents' (KeybrakeKeyProvider's default): other flows would be refused.
    vault === "keybrake" && flow !== "payment-intent" && flowChoices.includes(flow)
      ? `--vault keybrake works with --flow payment-intent only (the vault key allows /v1/payment_intents), got --flow ${flow}`
      : undefined,
    options.link === undefined ? undefined : linkProblem(options.directory, options.link),
    options.vendor === undefined ? undefined : vendorProblem(options.vendor),
    options.link !== undefined && options.vendor !== undefined ? "--link and --vendor cannot be used together: depend on the checkout, or on packs of it" : undefined,
  ].filter((problem): problem is string => problem !== undefined);
  let queueBudget: QueueBudgetFile | undefined;
  try {
    queueBudget = queueBudgetFile(options.queue, options.stackBudget);
  } catch (error) {
    if (!(error instanceof TuningError)) throw error;
    problems.push(...error.problems.map((problem) => `the queue's budget: ${problem}`));
  }
  if (problems.length > 0 || !queueBudget) throw new ScaffoldError(problems.join("\n"));

  const link = options.link?.split(path.sep).join("/");
  return {
    name: options.name,
    queue: options.queue,
    currency,
    database,
    vault,
    flow,
    telemetry,
    billingIdentity,
    chargeguard: link === undefined ? publishedRange() : `file:${link}`,
    eslintPlugin: link === undefined ? publishedRange() : `file:${link}/eslint-plugin`,
    queueBudget,
    vendored: false,
  };
}

function linkProblem(directory: string, link: string): string | undefined {
  const checkout = path.resolve(path.resolve(directory), link);
  const manifest = path.join(checkout, "package.json");
  if (!existsSync(manifest)) return `--link ${link}: no package.json at ${checkout} (relative to the new project)`;
  const name = (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name;
  if (name !== "chargeguard") return `--link ${link}: ${checkout} is "${String(name)}", not a chargeguard checkout`;
  if (!existsSync(path.join(checkout, "eslint-plugin", "package.json"))) {
    return `--link ${link}: ${checkout} has no eslint-plugin/ (not a full chargeguard checkout)`;
  }
  return undefined;
}

async function refuseNonEmpty(directory: string): Promise<void> {
  if (!existsSync(directory)) return;
  if (!(await stat(directory)).isDirectory()) throw new ScaffoldError(`${directory} exists and is not a directory`);
  const entries = await readdir(directory);
  if (entries.length > 0) {
    throw new ScaffoldError(`${directory} is not empty (${entries.length} entries): pick a new or empty directory`);
  }
}

/** The template directory beside the sources (templates/files) or, from dist/templates, in the package root. */
export function consumerTemplateRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, "files", "consumer"), path.join(here, "..", "..", "templates", "files", "consumer")];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new ScaffoldError(`the consumer template is missing (looked in ${candidates.join(", ")})`);
  return found;
}

/**
 * Template files by their path in the project: the consumer template, then for another flow than the default, the
 * files every other flow shares (flows/common: a consumer.ts taking the flow and event) and the flow's own
 * (flows/<flow>: src/flow.ts, src/event.ts, test/consumer.test.ts), each replacing the one before at the same path.
 * The PaymentIntent flow keyed on the usage event's id takes identity/usage-event's src/event.ts (a usageId).
 */
async function templateSources(flow: FlowChoice, identity: BillingIdentityChoice, telemetry: TelemetryChoice): Promise<Map<string, string>> {
  const root = consumerTemplateRoot();
  const layers =
    flow === "payment-intent"
      ? [root, ...(identity === "usage-event" ? [path.join(root, "..", "identity", "usage-event")] : [])]
      : [root, path.join(root, "..", "flows", "common"), path.join(root, "..", "flows", flow)];
  // Then the telemetry choice's src/telemetry.ts (files/telemetry/<choice>), over the template's Azure Monitor one.
  const telemetryFiles = telemetryLayer(root, telemetry);
  if (telemetryFiles !== undefined) layers.push(telemetryFiles);
  const sources = new Map<string, string>();
  for (const layer of layers) {
    if (!existsSync(layer)) throw new ScaffoldError(`the ${flow} flow's template is missing (looked in ${layer})`);
    for (const relative of await listFiles(layer)) sources.set(relative, path.join(layer, relative));
  }
  return sources;
}

async function listFiles(root: string, prefix = ""): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(path.join(root, prefix), { withFileTypes: true })) {
    const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await listFiles(root, relative)));
    else files.push(relative);
  }
  return files;
}

/** npm drops `.gitignore` from published packages, so the template keeps it as `_gitignore` (as create-vite does). */
function outputName(relative: string): string {
  return relative.replace(/(^|\/)_gitignore$/, "$1.gitignore").replace(/(^|\/)_dockerignore$/, "$1.dockerignore");
}

/**
 * `npm run reconcile`: the reconciler over this project's own flow (its src/flow.ts, built first so an edit is what
 * runs), not the built-in flow of the same name; the PaymentIntent project bills with the built-in flow itself.
 */
function reconcileScript(flow: FlowChoice): string {
  return flow === "payment-intent" ? "chargeguard reconcile" : "npm run build --silent && chargeguard reconcile --flows dist/flow.js";
}

function fillPlaceholders(text: string, settings: Settings): string {
  const values: Record<string, string> = {
    __NAME__: settings.name,
    __QUEUE__: settings.queue,
    __CURRENCY__: settings.currency,
    __DATABASE__: settings.database,
    __VAULT__: settings.vault,
    __CHARGEGUARD_SPEC__: settings.chargeguard,
    __ESLINT_PLUGIN_SPEC__: settings.eslintPlugin,
    __RECONCILE__: reconcileScript(settings.flow),
    __TELEMETRY_ROW__: telemetryReadmeRow(settings.telemetry, settings.name),
    ...identityPlaceholders(settings.billingIdentity),
    __VENDOR_COPY__: settings.vendored
      ? "COPY vendor ./vendor"
      : "# (no vendor/: chargeguard comes from the registry; `chargeguard new consumer --vendor` packs it in)",
  };
  return text.replace(/__[A-Z_]+__/g, (placeholder) => values[placeholder] ?? placeholder);
}
