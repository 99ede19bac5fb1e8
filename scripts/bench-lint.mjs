#!/usr/bin/env node
// npm run bench:lint: how much eslint-plugin-chargeguard's recommended config adds to lint time.
// Generates a deterministic corpus (seeded) of realistic TypeScript files (billing consumers, services, utilities),
// then lints all of it in one process with the typescript-eslint parser and typescript-eslint's recommended rules
// (what a TypeScript team runs anyway), without and with chargeguard's configs.recommended, in alternating rounds
// after a warm-up, and prints the medians and the overhead ratio. Two corpora, one after the other: a realistic
// repository (15% consumers, the rest services and utilities; target: at most +5%) and a repository made entirely of
// billing code (function and class consumers, Stripe billing services injected into them; target: at most 1.10x).
// The ratio is taken on the process's CPU time (user + system): on a shared machine wall-clock time mostly
// measures the neighbours. Wall-clock medians are printed too, and a final run with ESLint's per-rule statistics
// gives the time spent inside chargeguard's rules, a figure no neighbour can blur.
// BENCH_CONFIG=type-checked compares typed linting instead: typescript-eslint's own type-checked set
// (`recommendedTypeChecked`, with the project service) alone against the same plus chargeguard's
// `recommended-type-checked` (target: at most 1.10x on either corpus). The typed corpus is written under the
// repository's `.tmp/` with a tsconfig, so `stripe`, `@azure/service-bus` and `pg` resolve to their real types.
// Options (environment): BENCH_FILES (default 2400), BENCH_ROUNDS (default 5), BENCH_SEED (default 20261130),
// BENCH_CORPUS (realistic, billing, or both: the default), BENCH_CONFIG (recommended, the default, or type-checked;
// `--type-checked` and `npm run bench:lint:typed` say the same).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import chargeguard from "eslint-plugin-chargeguard";

const FILES = Number(process.env.BENCH_FILES ?? 2400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SEED = Number(process.env.BENCH_SEED ?? 20261130);
const CORPORA = (process.env.BENCH_CORPUS ?? "realistic,billing").split(",").map((name) => name.trim()).filter(Boolean);
const CONFIG = process.argv.includes("--type-checked") ? "type-checked" : (process.env.BENCH_CONFIG ?? "recommended");
if (CONFIG !== "recommended" && CONFIG !== "type-checked") throw new Error(`BENCH_CONFIG: unknown config "${CONFIG}" (recommended or type-checked)`);
const TYPED = CONFIG === "type-checked";
/** Overhead targets by corpus (the ratio minus one); typed linting: 1.10x of typescript-eslint's type-checked set. */
const TARGETS = TYPED ? { realistic: 0.1, billing: 0.1 } : { realistic: 0.05, billing: 0.1 };
const REPOSITORY = fileURLToPath(new URL("..", import.meta.url));

/** The typed corpus's tsconfig: the generated code type-checks against the real SDKs' types. */
const TSCONFIG = JSON.stringify(
  {
    compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: true, noEmit: true, types: ["node"] },
    include: ["**/*.ts"],
  },
  null,
  2,
);

/** mulberry32: a small seeded generator, so every run lints the same corpus. */
function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = seeded(SEED);
const pick = (items) => items[Math.floor(random() * items.length)];
const between = (low, high) => low + Math.floor(random() * (high - low + 1));
const NOUNS = ["invoice", "usage", "meter", "account", "customer", "plan", "seat", "credit", "ledger", "payout", "order", "quota"];
const VERBS = ["load", "save", "sync", "apply", "record", "close", "open", "rate", "price", "settle", "audit", "export"];
const capital = (word) => word[0].toUpperCase() + word.slice(1);

function utility(index) {
  const noun = pick(NOUNS);
  const type = `${capital(noun)}${index}`;
  const lines = [
    `// Helpers for ${noun} values: formatting, money arithmetic, grouping.`,
    `export interface ${type} { id: string; ${noun}Id: string; amountCents: number; currency: string; period: string; tags: string[] }`,
    `export type ${type}Status = "open" | "closed" | "void";`,
    `const CURRENCY_DIGITS: Record<string, number> = { usd: 2, eur: 2, jpy: 0, gbp: 2 };`,
    ``,
  ];
  for (let fn = 0; fn < between(6, 12); fn += 1) {
    const name = `${pick(VERBS)}${capital(noun)}${fn}`;
    switch (fn % 4) {
      case 0:
        lines.push(
          `export function ${name}(items: readonly ${type}[], currency = "usd"): Map<string, number> {`,
          `  const totals = new Map<string, number>();`,
          `  for (const item of items) {`,
          `    if (item.currency !== currency) continue;`,
          `    totals.set(item.period, (totals.get(item.period) ?? 0) + item.amountCents);`,
          `  }`,
          `  return totals;`,
          `}`,
        );
        break;
      case 1:
        lines.push(
          `export function ${name}(amountCents: number, currency: string): string {`,
          `  const digits = CURRENCY_DIGITS[currency.toLowerCase()] ?? 2;`,
          `  const value = (amountCents / 10 ** digits).toFixed(digits);`,
          `  return \`\${value} \${currency.toUpperCase()}\`;`,
          `}`,
        );
        break;
      case 2:
        lines.push(
          `export function ${name}(value: ${type}, status: ${type}Status): ${type} {`,
          `  const tags = value.tags.filter((tag) => !tag.startsWith("status:"));`,
          `  return { ...value, tags: [...tags, \`status:\${status}\`].sort() };`,
          `}`,
        );
        break;
      default:
        lines.push(
          `export const ${name} = (items: ${type}[], size = ${between(5, 50)}): ${type}[][] =>`,
          `  items.reduce<${type}[][]>((pages, item, position) => {`,
          `    if (position % size === 0) pages.push([]);`,
          `    pages[pages.length - 1]!.push(item);`,
          `    return pages;`,
          `  }, []);`,
        );
    }
    lines.push("");
  }
  return lines.join("\n");
}

function service(index) {
  const noun = pick(NOUNS);
  const entity = `${capital(noun)}Record${index}`;
  return `import { Pool } from "pg";
import { format${index % 7} } from "../utilities/format-${index % 7}.js";

export interface ${entity} { id: string; customerId: string; amountCents: number; state: "pending" | "done"; updatedAt: Date }

interface Repository<T> { create(row: Omit<T, "updatedAt">): Promise<T>; update(id: string, patch: Partial<T>): Promise<T>; find(id: string): Promise<T | null> }

export class ${capital(noun)}Service${index} {
  private readonly cache = new Map<string, ${entity}>();
  constructor(private readonly pool: Pool, private readonly repository: Repository<${entity}>, private readonly log: (line: string) => void) {}

  async get(id: string): Promise<${entity} | null> {
    const cached = this.cache.get(id);
    if (cached) return cached;
    const result = await this.pool.query<${entity}>("SELECT * FROM ${noun}_records WHERE id = $1", [id]);
    const row = result.rows[0] ?? null;
    if (row) this.cache.set(id, row);
    return row;
  }

  async open(customerId: string, amountCents: number): Promise<${entity}> {
    if (!Number.isInteger(amountCents) || amountCents <= 0) throw new Error(\`amountCents must be a positive integer, got \${amountCents}\`);
    const row = await this.repository.create({ id: \`${noun}-\${customerId}-\${amountCents}\`, customerId, amountCents, state: "pending" });
    this.log(\`opened \${row.id} for \${format${index % 7}(amountCents)}\`);
    return row;
  }

  async close(id: string): Promise<void> {
    try {
      await this.pool.query("UPDATE ${noun}_records SET state = 'done' WHERE id = $1", [id]);
      this.cache.delete(id);
    } catch (error) {
      this.log(\`close \${id} failed: \${String(error)}\`);
      throw error;
    }
  }

  async totals(customerIds: readonly string[]): Promise<Record<string, number>> {
    const rows = await Promise.all(customerIds.map((customerId) => this.pool.query<{ total: string }>(
      "SELECT coalesce(sum(amount_cents), 0) AS total FROM ${noun}_records WHERE customer_id = $1", [customerId])));
    return Object.fromEntries(customerIds.map((customerId, position) => [customerId, Number(rows[position]?.rows[0]?.total ?? 0)]));
  }

  async touch(id: string): Promise<${entity}> {
    return this.repository.update(id, { updatedAt: new Date() });
  }
}
`;
}

/** A billing consumer; one in ten carries one of the seeds' mistakes, so the plugin has something to report. */
function consumer(index) {
  const broken = index % 10 === 0 ? pick(["random-key", "message-id", "abandon", "no-key"]) : "none";
  const timeout = pick([10_000, 20_000, 30_000]);
  const retries = between(0, 2);
  const key =
    broken === "random-key" ? "randomUUID()" : broken === "message-id" ? "`charge-${message.messageId}`" : "keyFor(event)";
  const options = broken === "no-key" ? "" : `, { idempotencyKey: ${key} }`;
  const onUnknown =
    broken === "abandon"
      ? "await receiver.abandonMessage(message);"
      : `await receiver.deadLetterMessage(message, { deadLetterReason: "stripe-outcome-unknown", deadLetterErrorDescription: String(error) });`;
  return `import Stripe from "stripe";
import { ServiceBusClient, type ServiceBusReceivedMessage, type ServiceBusReceiver } from "@azure/service-bus";
import { createHash, randomUUID } from "node:crypto";
import { Pool } from "pg";

interface UsageEvent { customerId: string; stripeCustomerId: string; billingPeriod: string; amountCents: number; currency: string }

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY ?? "", { timeout: ${timeout}, maxNetworkRetries: ${retries} });
const pool = new Pool();
const traceId = randomUUID();

function parse(body: unknown): UsageEvent {
  const event = body as Partial<UsageEvent>;
  if (typeof event.customerId !== "string" || typeof event.amountCents !== "number") throw new Error("customerId and amountCents are required");
  return event as UsageEvent;
}

function keyFor(event: UsageEvent): string {
  return createHash("sha256").update(JSON.stringify([event.customerId, event.billingPeriod, event.amountCents, event.currency])).digest("hex");
}

export async function handle${index}(receiver: ServiceBusReceiver, message: ServiceBusReceivedMessage): Promise<void> {
  const event = parse(message.body);
  const claim = await pool.query("INSERT INTO billing_records (key, customer_id, period) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [keyFor(event), event.customerId, event.billingPeriod]);
  if (claim.rowCount === 0) {
    await receiver.completeMessage(message);
    return;
  }
  try {
    const intent = await stripe.paymentIntents.create(
      { amount: event.amountCents, currency: event.currency, customer: event.stripeCustomerId, confirm: true, off_session: true, metadata: { trace: traceId } }${options},
    );
    await pool.query("UPDATE billing_records SET state = 'charged', intent = $2 WHERE key = $1", [keyFor(event), intent.id]);
    await receiver.completeMessage(message);
  } catch (error) {
    ${onUnknown}
  }
}

export function start${index}(connectionString: string) {
  const client = new ServiceBusClient(connectionString);
  const receiver = client.createReceiver("billing-${index % 5}", { receiveMode: "peekLock", maxAutoLockRenewalDurationInMs: ${timeout * (retries + 1) + 5_000 * retries + 60_000} });
  return receiver.subscribe({
    processMessage: (message) => handle${index}(receiver, message),
    processError: async ({ error }) => console.error(error),
  });
}
`;
}

/** A Stripe billing service of the kind consumers get injected (NestJS-style provider). */
function billingService(index) {
  const retries = between(0, 2);
  return `import Stripe from "stripe";
import { createHash } from "node:crypto";

export interface Charge${index} { customerId: string; stripeCustomerId: string; billingPeriod: string; amountCents: number; currency: string }

export class BillingService${index} {
  private readonly stripe = new Stripe(process.env.STRIPE_SECRET_KEY ?? "", { timeout: 20_000, maxNetworkRetries: ${retries} });

  keyFor(charge: Charge${index}): string {
    return createHash("sha256").update(JSON.stringify([charge.customerId, charge.billingPeriod, charge.amountCents, charge.currency])).digest("hex");
  }

  async charge(charge: Charge${index}): Promise<string> {
    const intent = await this.stripe.paymentIntents.create(
      { amount: charge.amountCents, currency: charge.currency, customer: charge.stripeCustomerId, confirm: true, off_session: true },
      { idempotencyKey: \`usage:v1:\${this.keyFor(charge)}\` },
    );
    return intent.id;
  }

  async refund(intentId: string, charge: Charge${index}): Promise<void> {
    await this.stripe.refunds.create({ payment_intent: intentId }, { idempotencyKey: \`refund:\${this.keyFor(charge)}\` });
  }

  async find(charge: Charge${index}) {
    const found = await this.stripe.paymentIntents.search({ query: \`metadata['key']:'\${this.keyFor(charge)}'\` });
    return found.data[0] ?? null;
  }
}
`;
}

/** A class consumer with the billing service injected; one in ten abandons after a charge. */
function classConsumer(index) {
  const service = Math.max(0, index - 1);
  const onUnknown =
    index % 10 === 0
      ? "await this.receiver.abandonMessage(message);"
      : `await this.receiver.deadLetterMessage(message, { deadLetterReason: "stripe-outcome-unknown", deadLetterErrorDescription: String(error) });`;
  return `import type { ServiceBusReceivedMessage, ServiceBusReceiver } from "@azure/service-bus";
import Stripe from "stripe";
import { Pool } from "pg";

interface Charge { customerId: string; stripeCustomerId: string; billingPeriod: string; amountCents: number; currency: string }

class BillingService {
  constructor(private readonly stripe: Stripe) {}
  async charge(charge: Charge, key: string): Promise<string> {
    const intent = await this.stripe.paymentIntents.create({ amount: charge.amountCents, currency: charge.currency, customer: charge.stripeCustomerId, confirm: true }, { idempotencyKey: key });
    return intent.id;
  }
}

export class UsageConsumer${index} {
  private readonly pool = new Pool();
  constructor(private readonly billing: BillingService, private readonly receiver: ServiceBusReceiver) {}

  private parse(body: unknown): Charge {
    const charge = body as Partial<Charge>;
    if (typeof charge.customerId !== "string" || typeof charge.amountCents !== "number") throw new Error("customerId and amountCents are required (service ${service})");
    return charge as Charge;
  }

  async handle(message: ServiceBusReceivedMessage): Promise<void> {
    const charge = this.parse(message.body);
    const key = \`\${charge.customerId}:\${charge.billingPeriod}:\${charge.amountCents}\`;
    const claim = await this.pool.query("INSERT INTO billing_records (key) VALUES ($1) ON CONFLICT DO NOTHING", [key]);
    if (claim.rowCount === 0) {
      await this.receiver.completeMessage(message);
      return;
    }
    try {
      const intent = await this.billing.charge(charge, key);
      await this.pool.query("UPDATE billing_records SET state = 'charged', intent = $2 WHERE key = $1", [key, intent]);
      await this.receiver.completeMessage(message);
    } catch (error) {
      ${onUnknown}
    }
  }
}
`;
}

function writeCorpus(directory, corpus) {
  rmSync(directory, { recursive: true, force: true });
  const counts = { consumers: 0, services: 0, utilities: 0 };
  for (const folder of ["consumers", "services", "utilities"]) mkdirSync(path.join(directory, folder), { recursive: true });
  if (TYPED) writeFileSync(path.join(directory, "tsconfig.json"), TSCONFIG);
  for (let index = 0; index < FILES; index += 1) {
    const roll = random();
    if (corpus === "billing") {
      // All billing code: function consumers, class consumers with an injected service, Stripe billing services.
      if (roll < 0.4) writeFileSync(path.join(directory, "consumers", `consumer-${index}.ts`), consumer(index));
      else if (roll < 0.7) writeFileSync(path.join(directory, "consumers", `class-consumer-${index}.ts`), classConsumer(index));
      else writeFileSync(path.join(directory, "services", `billing-service-${index}.ts`), billingService(index));
      counts[roll < 0.7 ? "consumers" : "services"] += 1;
      continue;
    }
    if (roll < 0.15) {
      writeFileSync(path.join(directory, "consumers", `consumer-${index}.ts`), consumer(index));
      counts.consumers += 1;
    } else if (roll < 0.55) {
      writeFileSync(path.join(directory, "services", `service-${index}.ts`), service(index));
      counts.services += 1;
    } else {
      writeFileSync(path.join(directory, "utilities", `utility-${index}.ts`), utility(index));
      counts.utilities += 1;
    }
  }
  return counts;
}

async function lint(directory, withPlugin, stats = false) {
  const eslint = new ESLint({
    cwd: directory,
    overrideConfigFile: true,
    stats,
    overrideConfig: TYPED
      ? [
          {
            files: ["**/*.ts"],
            languageOptions: { parser: tseslint.parser, parserOptions: { sourceType: "module", projectService: true, tsconfigRootDir: directory } },
          },
          ...tseslint.configs.recommendedTypeChecked,
          ...(withPlugin ? [chargeguard.configs["recommended-type-checked"]] : []),
        ]
      : [
          { files: ["**/*.ts"], languageOptions: { parser: tseslint.parser, parserOptions: { sourceType: "module" } } },
          ...tseslint.configs.recommended,
          ...(withPlugin ? [chargeguard.configs.recommended] : []),
        ],
  });
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const results = await eslint.lintFiles(["."]);
  const cpuUsed = process.cpuUsage(cpuBefore);
  const wall = performance.now() - started;
  const reports = results.reduce((sum, result) => sum + result.messages.filter((message) => message.ruleId?.startsWith("chargeguard/")).length, 0);
  return { wall, cpu: (cpuUsed.user + cpuUsed.system) / 1000, files: results.length, reports, results };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

for (const corpus of CORPORA) await benchmark(corpus);

async function benchmark(corpus) {
  const target = TARGETS[corpus];
  if (target === undefined) throw new Error(`BENCH_CORPUS: unknown corpus "${corpus}" (realistic or billing)`);
  // Typed: inside the repository, so the corpus's imports resolve to node_modules' real types.
  const directory = TYPED
    ? path.join(REPOSITORY, ".tmp", `bench-lint-${corpus}-typed-${SEED}`)
    : path.join(tmpdir(), `chargeguard-bench-lint-${corpus}-${SEED}`);
  const counts = writeCorpus(directory, corpus);
  console.log(`\n[${corpus}${TYPED ? ", type-checked" : ""}] corpus: ${FILES} TypeScript files (${counts.consumers} consumers, ${counts.services} services, ${counts.utilities} utilities), seed ${SEED}, in ${directory}`);

  await lint(directory, false); // warm-up: module loading, JIT
  await lint(directory, true);
  const runs = { without: [], with: [] };
  let files = 0;
  let reports = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    // Alternate which goes first, so drift on a shared machine hits both sides.
    const order = round % 2 === 0 ? [false, true] : [true, false];
    for (const plugin of order) {
      const run = await lint(directory, plugin);
      runs[plugin ? "with" : "without"].push(run);
      files = run.files;
      if (plugin) reports = run.reports;
      const label = plugin ? "with chargeguard   " : TYPED ? "typescript-eslint (type-checked)" : "typescript-eslint  ";
      console.log(`round ${round + 1}: ${label} cpu ${run.cpu.toFixed(0)} ms, wall ${run.wall.toFixed(0)} ms, ${run.reports} reports`);
    }
  }
  const cpuWithout = median(runs.without.map((run) => run.cpu));
  const cpuWith = median(runs.with.map((run) => run.cpu));
  const wallWithout = median(runs.without.map((run) => run.wall));
  const wallWith = median(runs.with.map((run) => run.wall));
  const overhead = cpuWith / cpuWithout - 1;
  console.log(`files linted: ${files}; chargeguard reports: ${reports} (the corpus's deliberately broken consumers)`);
  console.log(`median CPU time: ${cpuWithout.toFixed(0)} ms without the plugin, ${cpuWith.toFixed(0)} ms with configs["${CONFIG === "recommended" ? "recommended" : "recommended-type-checked"}"]`);
  console.log(`median wall time: ${wallWithout.toFixed(0)} ms without, ${wallWith.toFixed(0)} ms with (ratio ${(wallWith / wallWithout).toFixed(3)})`);
  console.log(`[${corpus}] overhead: ${(overhead * 100).toFixed(1)}% of CPU time (ratio ${(cpuWith / cpuWithout).toFixed(3)}; target <= ${(target * 100).toFixed(0)}%): ${overhead <= target ? "met" : "NOT met"}`);

  // ESLint's own accounting: time inside each rule, and the whole lint, in one run.
  const { results } = await lint(directory, true, true);
  let ruleTime = 0;
  let lintTime = 0;
  const perRule = new Map();
  for (const result of results) {
    for (const pass of result.stats?.times.passes ?? []) {
      lintTime += pass.total;
      for (const [rule, time] of Object.entries(pass.rules ?? {})) {
        if (!rule.startsWith("chargeguard/")) continue;
        ruleTime += time.total;
        perRule.set(rule, (perRule.get(rule) ?? 0) + time.total);
      }
    }
  }
  console.log(`inside chargeguard's rules (eslint stats): ${ruleTime.toFixed(0)} ms of ${lintTime.toFixed(0)} ms lint time (${((ruleTime / lintTime) * 100).toFixed(1)}%)`);
  console.log(`  ${[...perRule].sort((a, b) => b[1] - a[1]).map(([rule, time]) => `${rule.slice(12)} ${time.toFixed(0)} ms`).join(", ")}`);
  rmSync(directory, { recursive: true, force: true });
}
