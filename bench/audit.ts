// `npm run bench:audit`: `chargeguard audit`'s engine over accounts of 10k and 100k payments on the Stripe emulator
// (in a worker thread, seeded through the real SDK), at Stripe's per-endpoint list budget (25 requests/s) and
// unbounded: wall time, peak heap of the auditing thread, pages read, and the share of the list-rate ceiling reached
// (pages per second / requests per second allowed). Run alone: `node dist/bench/audit.js [payments...]`.
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { auditAccount, TokenBucket } from "../runtime/audit/index.js";

export interface AuditBenchRow {
  payments: number;
  rate: number | "unbounded";
  seconds: number;
  peakHeapMiB: number;
  requests: number;
  ceilingShare: number | undefined;
  duplicatesFound: number;
  duplicatesSeeded: number;
}

async function seededAccount(payments: number): Promise<{ worker: Worker; apiBase: string; duplicates: number }> {
  const worker = new Worker(new URL("./audit-account-worker.js", import.meta.url), { workerData: { payments, customers: Math.max(10, Math.round(payments / 50)) } });
  const ready = await new Promise<{ apiBase: string; duplicates: number }>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return { worker, ...ready };
}

async function measure(apiBase: string, payments: number, duplicatesSeeded: number, rate: number | "unbounded"): Promise<AuditBenchRow> {
  global.gc?.();
  let peak = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 10);
  const started = process.hrtime.bigint();
  const result = await auditAccount({
    apiKey: "rk_test_sandbox",
    apiBase,
    budget: new TokenBucket(rate === "unbounded" ? 1_000_000 : rate),
    flows: ["paymentintents"],
    keyPath: ["metadata", "usage_id"],
    windowSeconds: 3_600,
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return {
    payments,
    rate,
    seconds,
    peakHeapMiB: peak / 2 ** 20,
    requests: result.requests.requests,
    ceilingShare: rate === "unbounded" ? undefined : result.requests.requests / seconds / rate,
    duplicatesFound: result.groups.filter((group) => group.confidence === "certain").reduce((sum, group) => sum + group.duplicates.length, 0),
    duplicatesSeeded,
  };
}

export async function benchAudit(sizes: number[] = [10_000, 100_000], rates: (number | "unbounded")[] = [25, "unbounded"]): Promise<AuditBenchRow[]> {
  const rows: AuditBenchRow[] = [];
  for (const payments of sizes) {
    const seedStarted = Date.now();
    const account = await seededAccount(payments);
    console.error(`seeded ${payments} payments (+${account.duplicates} duplicates) in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);
    try {
      for (const rate of rates) rows.push(await measure(account.apiBase, payments, account.duplicates, rate));
    } finally {
      account.worker.postMessage("stop");
      await new Promise((resolve) => account.worker.once("exit", resolve));
    }
  }
  return rows;
}

function table(rows: AuditBenchRow[]): string {
  const lines = [
    "| payments | budget | seconds | pages/s | share of ceiling | peak heap (auditing thread) | duplicates found / seeded |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const row of rows) {
    const budget = row.rate === "unbounded" ? "unbounded" : `${row.rate} req/s`;
    const share = row.ceilingShare === undefined ? "" : `${Math.round(row.ceilingShare * 100)}%`;
    lines.push(`| ${row.payments} | ${budget} | ${row.seconds.toFixed(2)} | ${(row.requests / row.seconds).toFixed(1)} | ${share} | ${row.peakHeapMiB.toFixed(1)} MiB | ${row.duplicatesFound} / ${row.duplicatesSeeded} |`);
  }
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const sizes = process.argv.slice(2).map(Number);
  if (sizes.some((size) => !Number.isInteger(size) || size < 1)) throw new RangeError(`payments must be positive integers, got ${process.argv.slice(2).join(" ")}`);
  const rows = await benchAudit(sizes.length > 0 ? sizes : undefined);
  console.log(table(rows));
}
