// The proving ground's databases (prove/databases/fresh-databases.ts): each contender's PGlite starts from one template, the
// template's bytes live in shared memory (a worker thread gets them without a copy), and every database gets a
// private copy of them, so what one contender writes no other sees, in this thread or in a worker. The initialised
// data directory is kept between runs (prove/databases/template-cache.ts), here in a scratch directory, not the user's cache.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import type { PGlite } from "@electric-sql/pglite";
import { FreshDatabases } from "../../prove/databases/fresh-databases.js";
import { templateCachePath } from "../../prove/databases/template-cache.js";

const scratch = mkdtempSync(path.join(tmpdir(), "chargeguard-template-cache-"));
const cacheFile = path.join(scratch, "pglite-datadir.tar");
const databases = new FreshDatabases(undefined, { cacheFile });
const opened: PGlite[] = [];

afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  rmSync(scratch, { recursive: true, force: true });
});

async function fresh(from: FreshDatabases = databases): Promise<PGlite> {
  const db = await from.create();
  opened.push(db);
  return db;
}

async function tableExists(db: PGlite, table: string): Promise<boolean> {
  const { rows } = await db.query<{ n: number }>("select count(*)::int as n from pg_tables where tablename = $1", [table]);
  return rows[0]?.n === 1;
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
    expect(await tableExists(second, "billed")).toBe(false);
    expect((await first.query<{ id: string }>("select id from billed")).rows).toEqual([{ id: "evt_1" }]);
  });

  it("opens a database in a worker thread from the posted template, the parent's bytes untouched", async () => {
    const template = await databases.template();
    const before = Buffer.from(template.dataDir.subarray(0, 4096)).toString("base64");
    // A worker thread cannot load TypeScript on Node 20: it imports the built module (npm run build, run first by
    // `npm test` and `npm run test:all`), as the proving ground's workers do.
    const moduleUrl = new URL("../../dist/prove/databases/fresh-databases.js", import.meta.url).href;
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
    expect(await tableExists(await fresh(), "written_in_worker")).toBe(false);
  });
});

describe("the template kept between runs", () => {
  it("is written on first use, and read back instead of initialising again", async () => {
    await databases.template();
    expect((await stat(cacheFile)).size).toBe((await databases.template()).dataDir.byteLength);
    // Mark the cached directory: a later run's databases carry the mark only if they came from the cache.
    const marked = await fresh();
    await marked.exec("create table came_from_the_cache (id int)");
    writeFileSync(cacheFile, new Uint8Array(await (await marked.dumpDataDir("none")).arrayBuffer()));
    const nextRun = new FreshDatabases(undefined, { cacheFile });
    expect(await tableExists(await fresh(nextRun), "came_from_the_cache")).toBe(true);
    expect(await tableExists(await fresh(new FreshDatabases(undefined, { cacheFile: null })), "came_from_the_cache")).toBe(false);
  });

  it("ignores a cache file that is not a data directory, and replaces it", async () => {
    const broken = path.join(scratch, "broken.tar");
    writeFileSync(broken, "not a tar archive, e.g. a write cut short");
    const db = await fresh(new FreshDatabases(undefined, { cacheFile: broken }));
    expect((await db.query<{ one: number }>("select 1 as one")).rows).toEqual([{ one: 1 }]);
    expect((await readFile(broken)).subarray(257, 262).toString("latin1")).toBe("ustar");
  });

  it("is kept per PGlite version in the user's cache directory", () => {
    const file = templateCachePath({ XDG_CACHE_HOME: "/home/someone/.cache" });
    expect(file).toMatch(/^\/home\/someone\/\.cache\/chargeguard\/pglite-\d+\.\d+\.\d+-datadir\.tar$/);
  });
});
