// pg (0.25 s to import alone): loaded when a PostgreSQL store, the fleet's Stripe budget or the database probe opens,
// so a consumer on the embedded database never loads it.
import { loadOnce, missingDependency } from "./load-once.js";

/** `pg`'s CommonJS exports (what `import pg from "pg"` names). */
export type PgModule = (typeof import("pg"))["default"];

const loadModule = loadOnce(() => import("pg"), missingDependency("pg", "a PostgreSQL database (DATABASE_URL)"));

/** The `pg` module, imported on first use; a ConfigurationError naming the package when absent. */
export async function loadPg(): Promise<PgModule> {
  return (await loadModule()).default;
}
