// The guard's prepared statements on PGlite answer what PGlite's own `query` answers, and never run inside, or in
// the middle of, what the application does on the same database.
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { preparedQuery } from "../../../runtime/guard/pglite-prepared.js";

let db: PGlite;
beforeAll(async () => {
  db = await PGlite.create();
  await db.exec(`CREATE TABLE prepared_probe (
    id text PRIMARY KEY, amount bigint NOT NULL, at timestamptz NOT NULL, doc jsonb, tags text[], flag boolean)`);
});
afterAll(async () => {
  await db?.close();
});

describe("preparedQuery on PGlite", () => {
  it("serialises parameters and parses rows as PGlite's query does (bigint, timestamptz, jsonb, arrays, null)", async () => {
    const at = new Date("2026-12-02T01:02:03.456Z");
    const insert = "INSERT INTO prepared_probe VALUES ($1, $2, $3, $4, $5, $6) RETURNING *";
    const prepared = await preparedQuery(db, insert, ["a", 1200, at, JSON.stringify({ k: [1, "x"] }), ["t1", "t,2"], null]);
    const plain = (await db.query(insert, ["b", 1200, at, JSON.stringify({ k: [1, "x"] }), ["t1", "t,2"], null])).rows;
    expect(prepared).toEqual([{ id: "a", amount: 1200, at, doc: { k: [1, "x"] }, tags: ["t1", "t,2"], flag: null }]);
    expect(prepared.map((row) => ({ ...row, id: "b" }))).toEqual(plain);
    // Run again (the statement is prepared now) with other values.
    const select = "SELECT id, amount FROM prepared_probe WHERE id = ANY($1::text[]) ORDER BY id";
    expect(await preparedQuery(db, select, [["a", "b"]])).toEqual([{ id: "a", amount: 1200 }, { id: "b", amount: 1200 }]);
    expect(await preparedQuery(db, select, [["b"]])).toEqual([{ id: "b", amount: 1200 }]);
    expect(await preparedQuery(db, "UPDATE prepared_probe SET flag = true WHERE id = $1", ["zz"])).toEqual([]);
  });

  it("waits for the application's transaction on the same database instead of running inside it", async () => {
    let inside!: () => void;
    const insideTransaction = new Promise<void>((resolve) => (inside = resolve));
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const transaction = db
      .transaction(async (tx) => {
        await tx.query("INSERT INTO prepared_probe VALUES ('tx-row', 1, now(), NULL, NULL, NULL)");
        inside();
        await finished;
        await tx.rollback();
      })
      .catch(() => {});
    await insideTransaction;
    // Issued while the transaction is open: it must not see, nor commit with, the transaction's row.
    const guardInsert = preparedQuery(db, "INSERT INTO prepared_probe VALUES ($1, 2, now(), NULL, NULL, NULL) RETURNING id", ["guard-row"]);
    const seen = preparedQuery(db, "SELECT count(*)::int AS n FROM prepared_probe WHERE id = $1", ["tx-row"]);
    finish();
    await transaction;
    expect(await guardInsert).toEqual([{ id: "guard-row" }]);
    expect(await seen).toEqual([{ n: 0 }]);
    expect((await db.query("SELECT id FROM prepared_probe WHERE id IN ('tx-row', 'guard-row')")).rows).toEqual([{ id: "guard-row" }]);
  });

  it("interleaves with PGlite's own queries issued at the same time", async () => {
    const sql = "SELECT $1::int + 1 AS next";
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? preparedQuery(db, sql, [i]) : db.query(sql, [i]).then((r) => r.rows))),
    );
    expect(answers).toEqual(Array.from({ length: 40 }, (_, i) => [{ next: i + 1 }]));
  });

  it("reports a bad statement as PostgreSQL does and does not remember it", async () => {
    await expect(preparedQuery(db, "SELECT * FROM no_such_table WHERE id = $1", ["x"])).rejects.toThrow(/relation "no_such_table" does not exist/);
    await db.exec("CREATE TABLE no_such_table (id text)");
    expect(await preparedQuery(db, "SELECT * FROM no_such_table WHERE id = $1", ["x"])).toEqual([]);
    await expect(preparedQuery(db, "SELECT $1::int AS n", ["not a number"])).rejects.toThrow(/invalid input syntax for type integer/);
    expect(await preparedQuery(db, "SELECT $1::int AS n", [7])).toEqual([{ n: 7 }]);
  });

  it("prepares again when the database dropped its prepared statements (DEALLOCATE ALL)", async () => {
    const sql = "SELECT $1::text AS echo";
    expect(await preparedQuery(db, sql, ["one"])).toEqual([{ echo: "one" }]);
    await db.exec("DEALLOCATE ALL");
    expect(await preparedQuery(db, sql, ["two"])).toEqual([{ echo: "two" }]);
  });

  it("prepares again when the schema changed what a statement returns", async () => {
    await db.exec("CREATE TABLE reshaped (id text PRIMARY KEY)");
    await db.exec("INSERT INTO reshaped VALUES ('r')");
    const sql = "SELECT * FROM reshaped WHERE id = $1";
    expect(await preparedQuery(db, sql, ["r"])).toEqual([{ id: "r" }]);
    await db.exec("ALTER TABLE reshaped ADD COLUMN note text DEFAULT 'added'");
    expect(await preparedQuery(db, sql, ["r"])).toEqual([{ id: "r", note: "added" }]);
  });

  it("keeps a bounded set of statements and runs the rest as PGlite's query does", async () => {
    const fresh = await PGlite.create();
    try {
      for (let i = 0; i < 140; i++) expect(await preparedQuery(fresh, `SELECT $1::int * ${i} AS n`, [2])).toEqual([{ n: 2 * i }]);
      const { rows } = await fresh.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements");
      expect(rows[0]?.n).toBe(128);
    } finally {
      await fresh.close();
    }
  });
});
