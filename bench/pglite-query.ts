// What a statement costs on PGlite through its own `query` and as the guard runs it (a named prepared statement,
// runtime/guard/pglite-prepared.ts), side by side in one process: CPU microseconds per statement, interleaved in
// rounds, medians. `npm run bench:pglite [rounds]`.
import { PGlite } from "@electric-sql/pglite";
// eslint-disable-next-line house/room-directions -- it times this internal of the guard, which no door holds
import { preparedQuery } from "../runtime/guard/pglite-prepared.js";

type Run = (sql: string, params: unknown[]) => Promise<unknown>;

const statements: { name: string; sql: string; params: (i: number) => unknown[] }[] = [
  { name: "keyed SELECT", sql: "SELECT * FROM bench_rows WHERE id = $1", params: (i) => [`row-${i % 2_000}`] },
  {
    name: "keyed UPDATE ... RETURNING",
    sql: "UPDATE bench_rows SET amount = amount + 1, updated_at = $2 WHERE id = $1 RETURNING id, amount",
    params: (i) => [`row-${i % 2_000}`, new Date()],
  },
  { name: "INSERT of a jsonb row", sql: "INSERT INTO bench_inserts VALUES ($1, $2, $3)", params: (i) => [`ins-${i}-${Math.random()}`, JSON.stringify({ amount: i, customer: `cus_${i}` }), new Date()] },
];

async function cpuMicrosPerCall(run: Run, sql: string, params: (i: number) => unknown[], calls: number, offset: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) await run(sql, params(offset + i));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const rounds = Number(process.argv[2] ?? 7);
if (!Number.isSafeInteger(rounds) || rounds < 1) {
  console.error("usage: node dist/bench/pglite-query.js [rounds >= 1]");
  process.exit(2);
}
const db = await PGlite.create();
await db.exec(`CREATE TABLE bench_rows (id text PRIMARY KEY, amount bigint NOT NULL, updated_at timestamptz NOT NULL);
  INSERT INTO bench_rows SELECT 'row-' || i, i, now() FROM generate_series(0, 1999) i;
  CREATE TABLE bench_inserts (id text PRIMARY KEY, doc jsonb NOT NULL, at timestamptz NOT NULL);`);
const ways: [string, Run][] = [
  ["PGlite query", async (sql, params) => (await db.query(sql, params)).rows],
  ["prepared (the guard's)", (sql, params) => preparedQuery(db, sql, params)],
];
console.log(`PGlite ${rounds} rounds of 1,000 calls per way, CPU us per statement (median)\n`);
console.log("| statement | PGlite query | prepared | prepared / query |\n| --- | --- | --- | --- |");
for (const statement of statements) {
  const samples = ways.map(() => [] as number[]);
  for (const [, run] of ways) await cpuMicrosPerCall(run, statement.sql, statement.params, 300, 0); // warm up
  for (let round = 0; round < rounds; round++) {
    for (let w = 0; w < ways.length; w++) {
      const way = (w + round) % ways.length;
      (samples[way] as number[]).push(await cpuMicrosPerCall((ways[way] as [string, Run])[1], statement.sql, statement.params, 1_000, round * 1_000));
    }
  }
  const [plain, prepared] = samples.map(median) as [number, number];
  console.log(`| ${statement.name} | ${plain.toFixed(0)} | ${prepared.toFixed(0)} | ${((prepared / plain) * 100).toFixed(0)}% |`);
}
await db.close();
