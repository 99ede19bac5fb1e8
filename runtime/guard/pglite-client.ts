// SqlClient over PGlite (PostgreSQL in WebAssembly, one connection). PGlite runs one transaction at a time
// and holds other queries until it ends, so transactions here are serialised, never interleaved. Statements outside
// a transaction run prepared (pglite-prepared.ts); those inside one, rare and not on the hot path, as PGlite runs them.
import type { PGlite } from "@electric-sql/pglite";
import { preparedQuery } from "./pglite-prepared.js";
import type { SqlClient } from "./sql-client.js";

export function pgliteClient(db: PGlite, options: { owned: boolean }): SqlClient {
  return {
    async query(sql, params = []) {
      return (await preparedQuery(db, sql, params)) as never[];
    },
    transaction: (fn) =>
      db.transaction((tx) =>
        fn({
          async query(sql, params = []) {
            const result = await tx.query(sql, params as unknown[]);
            return result.rows as never[];
          },
        }),
      ),
    async close() {
      if (options.owned) await db.close();
    },
  };
}
