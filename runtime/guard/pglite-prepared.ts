// The guard's statements on PGlite as named prepared statements. PGlite's `query` parses, describes and plans its
// statement on every call: six trips into WebAssembly that cost about five times the keyed lookup they wrap, on the
// consumer's own thread (`npm run bench:pglite`). A statement prepared once runs as one Bind/Execute/Sync message,
// its plan cached by PostgreSQL, under the same two locks `query` takes, so it never interleaves with a caller's own
// queries or transactions on a shared PGlite.
//
// It reaches past PGlite's public API: `_checkReady`, `_runExclusiveTransaction`, `_runExclusiveQuery` (the locks),
// `execProtocol`, `serializers`/`parsers`, and the `protocol.serialize` / `parse` helpers. Those are not covered by
// semver, so the version they were read from is pinned here and in package.json, and
// `test/runtime/guard/pglite-version.test.ts` fails on any other version (runtime/README.md: "Upgrading PGlite").
import type { parse, PGlite } from "@electric-sql/pglite";
import { loadPglite } from "./load-pglite.js";

/** The PGlite version whose internals this file was written against (package.json pins the same exact version). */
export const pgliteVersionVerified = "0.5.17";

type BackendMessage = Parameters<typeof parse.parseResults>[0][number];

interface Prepared {
  name: string;
  paramTypes: number[];
  /** The statement's RowDescription (absent when it returns no rows), put before each run's rows to parse them. */
  rowDescription: BackendMessage | undefined;
}

/** Statements prepared per PGlite instance (shared by every client on it), by SQL text. */
const preparedByDatabase = new WeakMap<PGlite, Map<string, Promise<Prepared>>>();
/** The guard's SQL texts are a fixed set; a caller building texts at run time falls back to `query` past this. */
const maxStatements = 128;
/**
 * SQLSTATEs after which the statement is prepared again: it is gone (someone ran DEALLOCATE or DISCARD ALL), or the
 * schema changed what it returns ("cached plan must not change result type", e.g. a column added under SELECT *).
 */
const prepareAgainOn = new Set(["26000", "0A000"]);
let statementCounter = 0;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** As `db.query` does: the transaction lock (no caller's transaction is open), then the query lock. */
async function exclusive<T>(db: PGlite, fn: () => Promise<T>): Promise<T> {
  await db._checkReady();
  return db._runExclusiveTransaction(() => db._runExclusiveQuery(fn));
}

async function prepare(db: PGlite, sql: string): Promise<Prepared> {
  const name = `chargeguard_${++statementCounter}`;
  const { parse, protocol } = await loadPglite();
  const { serialize } = protocol;
  const { messages } = await exclusive(db, () =>
    db.execProtocol(concat([serialize.parse({ name, text: sql }), serialize.describe({ type: "S", name }), serialize.sync()]), { syncToFs: false }),
  );
  return {
    name,
    paramTypes: parse.parseDescribeStatementResults(messages),
    rowDescription: messages.find((message) => message.name === "rowDescription"),
  };
}

function preparedFor(db: PGlite, sql: string): Promise<Prepared> | undefined {
  let statements = preparedByDatabase.get(db);
  if (!statements) {
    statements = new Map();
    preparedByDatabase.set(db, statements);
  }
  const known = statements.get(sql);
  if (known) return known;
  if (statements.size >= maxStatements) return undefined;
  const prepared = prepare(db, sql);
  statements.set(sql, prepared);
  // A statement that does not prepare (a syntax error, a missing table) is not remembered: the next call tries again.
  prepared.catch(() => {
    if (statements.get(sql) === prepared) statements.delete(sql);
  });
  return prepared;
}

async function run(db: PGlite, prepared: Prepared, params: readonly unknown[]): Promise<Record<string, unknown>[]> {
  // Serialised as `db.query` does, by the parameter types PostgreSQL inferred for the statement.
  const values = params.map((param, i) => {
    if (param === null || param === undefined) return null;
    const serializer = db.serializers[prepared.paramTypes[i] ?? 0];
    return serializer ? serializer(param) : String(param);
  });
  const { parse, protocol } = await loadPglite();
  const { serialize } = protocol;
  const { messages } = await exclusive(db, () =>
    db.execProtocol(concat([serialize.bind({ statement: prepared.name, values }), serialize.execute({}), serialize.sync()])),
  );
  const [result] = parse.parseResults(prepared.rowDescription ? [prepared.rowDescription, ...messages] : messages, db.parsers);
  return (result?.rows ?? []) as Record<string, unknown>[];
}

/** Runs `sql` as a named prepared statement on `db` (prepared on first use), else as `db.query` would. */
export function preparedQuery(db: PGlite, sql: string, params: readonly unknown[]): Promise<Record<string, unknown>[]> {
  return runPrepared(db, sql, params, false);
}

async function runPrepared(db: PGlite, sql: string, params: readonly unknown[], retried: boolean): Promise<Record<string, unknown>[]> {
  const prepared = preparedFor(db, sql);
  if (!prepared) return (await db.query(sql, params as unknown[])).rows as Record<string, unknown>[];
  try {
    return await run(db, await prepared, params);
  } catch (error) {
    if (retried || !prepareAgainOn.has(String((error as { code?: unknown }).code))) throw error;
    const statements = preparedByDatabase.get(db);
    if (statements?.get(sql) === prepared) statements.delete(sql);
    return runPrepared(db, sql, params, true);
  }
}
