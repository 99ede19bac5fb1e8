// PGlite is not a dependency of chargeguard: a consumer on PostgreSQL does not install it (27 MB of WebAssembly), so
// the runtime loads it only when a guard opens an embedded database, from the consumer's own install, and says what to
// install when it is missing. (Not an optional peer either: npm then counts a consumer's devDependency on it, for its
// in-memory tests, as a production package, and `npm ci --omit=dev` installs it. ARCHITECTURE.md, "Packages and who
// installs them".)
import { ConfigurationError } from "../errors.js";

type PgliteModule = typeof import("@electric-sql/pglite");

let loading: Promise<PgliteModule> | undefined;

/** The `@electric-sql/pglite` module, imported on first use; a ConfigurationError naming the package when absent. */
export function loadPglite(): Promise<PgliteModule> {
  loading ??= import("@electric-sql/pglite").catch((error: unknown) => {
    loading = undefined;
    if ((error as { code?: unknown }).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new ConfigurationError(
      "the embedded database needs @electric-sql/pglite, which is not installed: install @electric-sql/pglite to use the embedded " +
        "database (npm install @electric-sql/pglite), or give DATABASE_URL for PostgreSQL",
    );
  });
  return loading;
}
