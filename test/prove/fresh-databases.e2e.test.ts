// The proving ground's databases (prove/fresh-databases.ts): each contender's PGlite starts from one template, the
// template's bytes live in shared memory (a worker thread gets them without a copy), and every database gets a
// private copy of them, so what one contender writes no other sees, in this thread or in a worker.
import { Worker } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import type { PGlite } from "@electric-sql/pglite";
import { FreshDatabases } from "../../prove/fresh-databases.js";

const databases = new FreshDatabases();
const opened: PGlite[] = [];

afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
});

async function fresh(): Promise<PGlite> {
  const db = await databases.create();
  opened.push(db);
  return db;
}

describe("fresh databases from one template", () => {
  it("keeps the template's bytes in shared memory", async () => {
    const template = await databases.template();
    expect(template.dataDir.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(template.fsBundle.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it("gives each database its own copy: a table made in one is absent from the next", async () => {
    const first = await fresh();
    await first.exec("create table billed (id text primary key); insert into billed values ('evt_1')");
    const second = await fresh();
    const tables = await second.query<{ n: number }>("select count(*)::int as n from pg_tables where tablename = 'billed'");
    expect(tables.rows[0]?.n).toBe(0);
    expect((await first.query<{ id: string }>("select id from billed")).rows).toEqual([{ id: "evt_1" }]);
  });

  it("opens a database in a worker thread from the posted template, the parent's bytes untouched", async () => {
    const template = await databases.template();
    const before = Buffer.from(template.dataDir.subarray(0, 4096)).toString("base64");
    // A worker thread cannot load TypeScript on Node 20: it imports the built module (npm run build, run first by
    // `npm test` and `npm run test:all`), as the proving ground's workers do.
    const moduleUrl = new URL("../../dist/prove/fresh-databases.js", import.meta.url).href;
    const worker = new Worker(
      `const { parentPort, workerData } = require("node:worker_threads");
       import(workerData.url).then(async ({ FreshDatabases }) => {
         const db = await new FreshDatabases(workerData.template).create();
         await db.exec("create table written_in_worker (id int)");
         const { rows } = await db.query("select count(*)::int as n from pg_tables where tablename = 'written_in_worker'");
         await db.close();
         parentPort.postMessage(rows[0].n);
       }, (error) => parentPort.postMessage(String(error)));`,
      { eval: true, workerData: { url: moduleUrl, template } },
    );
    const answer = await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    await worker.terminate();
    expect(answer).toBe(1);
    expect(Buffer.from(template.dataDir.subarray(0, 4096)).toString("base64")).toBe(before);
    const here = await fresh();
    expect((await here.query<{ n: number }>("select count(*)::int as n from pg_tables where tablename = 'written_in_worker'")).rows[0]?.n).toBe(0);
  });
});

