// The guard's migrations as numbered SQL files: they are read and split as PostgreSQL would run them, a misnamed or
// unexplained file is refused by name, and a fresh PGlite and a fresh PostgreSQL database migrated by them both end
// with exactly the committed runtime/guard/sql/schema.sql (a changed step without a changed snapshot fails here).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../../runtime/core/errors.js";
import { migrationFolder, readMigrationFiles } from "../../../runtime/guard/migration-files.js";
import { overCapSqlState, retiredSchemaSqlState } from "../../../runtime/guard/migration.js";
import { guardMigrations, migrate } from "../../../runtime/guard/migrations.js";
import { pgClient } from "../../../runtime/guard/pg-client.js";
import { pgliteClient } from "../../../runtime/guard/pglite-client.js";
import type { SqlClient } from "../../../runtime/guard/sql-client.js";
import { splitSqlStatements } from "../../../runtime/guard/sql-script.js";
import { createScratchDatabase, postgresServerUrl } from "./databases.js";
import { schemaText } from "./schema-text.js";

const snapshot = new URL("schema.sql", migrationFolder).pathname;
const now = new Date("2026-12-07T00:00:00Z");

async function migratedSchema(client: SqlClient): Promise<string> {
  expect(await migrate(client, now)).toEqual(readMigrationFiles().map((file) => file.version));
  expect(await migrate(client, now)).toEqual([]);
  return schemaText((sql) => client.query(sql));
}

describe("splitting a migration file", () => {
  it("splits at the semicolons that end statements, not those in strings, function bodies or comments", () => {
    const sql = [
      "-- description: a; b",
      "CREATE TABLE t (a text DEFAULT ';');",
      "/* not; here */ CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $fn$ BEGIN PERFORM 1; END $fn$;",
      "SELECT $1::text, 'it''s; fine';",
      "-- trailing comment only",
    ].join("\n");
    expect(splitSqlStatements(sql, "test.sql")).toEqual([
      "-- description: a; b\nCREATE TABLE t (a text DEFAULT ';')",
      "/* not; here */ CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $fn$ BEGIN PERFORM 1; END $fn$",
      "SELECT $1::text, 'it''s; fine'",
    ]);
  });

  it("refuses a file whose dollar-quoted body, string or comment never closes, naming the file", () => {
    const refusal = (sql: string) => () => splitSqlStatements(sql, "guard migration 000009.sql");
    expect(refusal("CREATE FUNCTION f() AS $fn$ BEGIN")).toThrow(new ConfigurationError("guard migration 000009.sql: unterminated $fn$"));
    expect(refusal("SELECT 'open")).toThrow(new ConfigurationError("guard migration 000009.sql: unterminated '"));
    expect(refusal("SELECT 1; /* open")).toThrow(new ConfigurationError("guard migration 000009.sql: unterminated */"));
  });
});

describe("the numbered files", () => {
  // Databases already recorded these five: a later step is one more file (the snapshot below then changes with it).
  it("start with versions 1 to 5 and the descriptions databases recorded, the steps later ones replaced named retired", () => {
    const files = readMigrationFiles().slice(0, 5);
    expect(files.map((file) => [file.version, file.retired])).toEqual([[1, true], [2, true], [3, true], [4, false], [5, false]]);
    expect(guardMigrations().slice(0, 5).map((migration) => migration.description)).toEqual([
      "billing_records and spend_ledger",
      "chargeguard_claim: a claim in one statement",
      "chargeguard_claim_many: concurrent claims in one statement",
      "spend caps per (period, currency); guard_records for any flow behind the guard",
      "one record table: billing_records moved into guard_records; claims batched over guard_records",
    ]);
  });

  it("raise the SQLSTATEs the guard branches on", () => {
    const text = (name: string) => readFileSync(new URL(name, migrationFolder), "utf8");
    expect(text("000004.sql")).toContain(`USING ERRCODE = '${overCapSqlState}'`);
    expect(text("000004.sql")).toContain(`EXCEPTION WHEN SQLSTATE '${overCapSqlState}'`);
    expect(text("000005.sql").match(new RegExp(`ERRCODE = '${retiredSchemaSqlState}'`, "g"))).toHaveLength(2);
  });

  it("are refused by name when misnamed, undescribed, retired without a reason or numbered with a gap", () => {
    const folderWith = (files: Record<string, string>) => {
      const folder = mkdtempSync(join(tmpdir(), "chargeguard-migrations-"));
      for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
      return pathToFileURL(`${folder}/`);
    };
    const described = "-- description: a step\nSELECT 1;\n";
    const refusal = (files: Record<string, string>) => () => readMigrationFiles(folderWith(files));
    expect(refusal({ "1.sql": described })).toThrow(new ConfigurationError("guard migration 1.sql is not named NNNNNN.sql or NNNNNN.retired.sql"));
    expect(refusal({ "000001.sql": "SELECT 1;" })).toThrow("guard migration 000001.sql does not start with '-- description: ...'");
    expect(refusal({ "000001.retired.sql": described })).toThrow("guard migration 000001.retired.sql is named retired but has no '-- retired: <why>' line");
    expect(refusal({ "000001.sql": described, "000003.sql": described })).toThrow("guard migration 000002 is missing or numbered twice");
    expect(refusal({ "000001.sql": described, "000001.retired.sql": `${described}-- retired: replaced\n` })).toThrow("guard migration 000002 is missing or numbered twice");
    expect(() => readMigrationFiles(new URL("file:///nonexistent-chargeguard-sql/"))).toThrow(ConfigurationError);
  });
});

describe("a fresh database migrated by the files ends with the committed schema.sql", () => {
  it("PGlite", async () => {
    const client = pgliteClient(await PGlite.create(), { owned: true });
    try {
      await expect(await migratedSchema(client)).toMatchFileSnapshot(snapshot);
    } finally {
      await client.close();
    }
  });

  it("PostgreSQL", async () => {
    const scratch = await createScratchDatabase(await postgresServerUrl());
    const client = pgClient(scratch.url);
    try {
      await expect(await migratedSchema(client)).toMatchFileSnapshot(snapshot);
    } finally {
      await client.close();
      await scratch.drop();
    }
  });
});
