// PGlite is the generated project's own dependency (ARCHITECTURE.md, "Packages and who installs them"): a production
// dependency when it chose the embedded database, else one for its tests only (they run the guard in memory), so a
// consumer on PostgreSQL ships without it. chargeguard's package.json pins the version (its devDependency, the one
// runtime/guard/pglite-prepared.ts is written against), and the project gets exactly that one.
import { readFileSync } from "node:fs";
import path from "node:path";

/** Where the generated consumer keeps its billing records; the first is the default. */
export const databaseChoices = ["pglite", "postgres"] as const;
export type DatabaseChoice = (typeof databaseChoices)[number];

const pglite = "@electric-sql/pglite";

/** The PGlite version chargeguard is written against (one exact version), from its package.json. */
function pgliteVersion(templateRoot: string): string {
  const manifest = path.join(templateRoot, "..", "..", "..", "package.json");
  const pins = (JSON.parse(readFileSync(manifest, "utf8")) as { devDependencies?: Record<string, string> }).devDependencies;
  const version = pins?.[pglite];
  if (version === undefined) throw new Error(`${manifest} has no devDependencies["${pglite}"]`);
  return version;
}

function sorted(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The project's package.json text with PGlite where the database choice needs it. */
export function withDatabasePackages(manifestText: string, database: DatabaseChoice, templateRoot: string): string {
  const manifest = JSON.parse(manifestText) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  const field = database === "pglite" ? "dependencies" : "devDependencies";
  manifest[field] = sorted({ ...manifest[field], [pglite]: pgliteVersion(templateRoot) });
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
