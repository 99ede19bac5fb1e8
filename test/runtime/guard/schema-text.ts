// The guard's schema as text, read from PostgreSQL's catalogs the same way on PGlite and on a server: tables with
// their columns, constraints, indexes, functions and the recorded versions, each sorted by name, so two databases
// that migrated alike print alike and any difference shows as a line in a diff against sql/schema.sql.

type Row = Record<string, unknown>;
export type CatalogQuery = (sql: string) => Promise<Row[]>;

const columnsSql = `
  SELECT c.relname AS table_name, a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS type,
         a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS default_expr
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
   WHERE n.nspname = 'public' AND c.relkind = 'r'
   ORDER BY c.relname, a.attnum`;

// contype 'n': PostgreSQL 18 records NOT NULL as constraints too; the columns already say NOT NULL.
const constraintsSql = `
  SELECT c.conrelid::regclass::text AS table_name, c.conname AS name, pg_get_constraintdef(c.oid) AS definition
    FROM pg_constraint c
   WHERE c.connamespace = 'public'::regnamespace AND c.contype <> 'n'
   ORDER BY 1, 2`;

const indexesSql = `SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1`;

const functionsSql = `
  SELECT p.proname AS name, pg_get_function_identity_arguments(p.oid) AS args, pg_get_functiondef(p.oid) AS definition
    FROM pg_proc p
   WHERE p.pronamespace = 'public'::regnamespace
   ORDER BY 1, 2`;

function tables(rows: Row[]): string[] {
  const byTable = new Map<string, string[]>();
  for (const row of rows) {
    const notNull = row.not_null === true ? " NOT NULL" : "";
    const dflt = row.default_expr === null ? "" : ` DEFAULT ${String(row.default_expr)}`;
    const columns = byTable.get(String(row.table_name)) ?? [];
    columns.push(`  ${String(row.column_name)} ${String(row.type)}${notNull}${dflt}`);
    byTable.set(String(row.table_name), columns);
  }
  return [...byTable].map(([table, columns]) => `CREATE TABLE ${table} (\n${columns.join(",\n")}\n);`);
}

/** The schema in the public namespace as SQL-shaped text, sorted, ending with the versions recorded. */
export async function schemaText(query: CatalogQuery): Promise<string> {
  const versions = await query(`SELECT version, description FROM chargeguard_schema_version ORDER BY version`);
  const sections = [
    "-- The guard's schema after every migration in this folder, as PostgreSQL's catalogs print it. Generated, not",
    "-- applied: test/runtime/guard/migration-files.test.ts migrates PGlite and PostgreSQL and fails when either",
    "-- differs from this file (`npx vitest run test/runtime/guard/migration-files.test.ts -u` rewrites it).",
    "",
    ...tables(await query(columnsSql)),
    "",
    ...(await query(constraintsSql)).map((row) => `ALTER TABLE ${String(row.table_name)} ADD CONSTRAINT ${String(row.name)} ${String(row.definition)};`),
    "",
    ...(await query(indexesSql)).map((row) => `${String(row.definition)};`),
    "",
    ...(await query(functionsSql)).map((row) => `${String(row.definition).trimEnd()};\n`),
    ...versions.map((row) => `-- version ${String(row.version)}: ${String(row.description)}`),
  ];
  return `${sections.join("\n")}\n`;
}
