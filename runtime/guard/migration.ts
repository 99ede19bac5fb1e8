// What one step of the guard's schema is: SQL statements, or a function of the transaction where a step needs the
// application's own code (a fingerprint computed as the guard computes it), run in order under the migration lock.
import type { SqlExecutor } from "./sql-client.js";

/** SQLSTATE raised by a claim when the amount does not fit under the period cap (rolls the claim back). */
export const overCapSqlState = "CG001";

/** SQLSTATE raised by the retired billing_records functions: a replica older than the schema must not bill. */
export const retiredSchemaSqlState = "CG002";

export interface Migration {
  version: number;
  description: string;
  statements: (string | ((tx: SqlExecutor, now: Date) => Promise<void>))[];
}
