// PGlite is not a dependency of chargeguard: a consumer on PostgreSQL does not install it (27 MB of WebAssembly), so
// the runtime loads it only when a guard opens an embedded database, from the consumer's own install, and says what to
// install when it is missing. (Not an optional peer either: npm then counts a consumer's devDependency on it, for its
// in-memory tests, as a production package, and `npm ci --omit=dev` installs it. ARCHITECTURE.md, "Packages and who
// installs them".)
import { loadOnce } from "../sdk/load-once.js";

type PgliteModule = typeof import("@electric-sql/pglite");

/** The `@electric-sql/pglite` module, imported on first use; a ConfigurationError naming the package when absent. */
export const loadPglite: () => Promise<PgliteModule> = loadOnce(
  () => import("@electric-sql/pglite"),
  "the embedded database needs @electric-sql/pglite, which is not installed: install @electric-sql/pglite to use the embedded " +
    "database (npm install @electric-sql/pglite), or give DATABASE_URL for PostgreSQL",
);
