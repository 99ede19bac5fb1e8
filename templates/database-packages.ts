// PGlite is an optional peer of chargeguard (ARCHITECTURE.md, "Packages and who installs them"): the generated
// project asks for it itself, as a production dependency when it chose the embedded database, else only for its
// tests (they run the guard in memory), so a consumer on PostgreSQL ships without it.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { DatabaseChoice } from "./scaffold.js";

const pglite = "@electric-sql/pglite";

/** The PGlite version chargeguard is written against (its peer range, one exact version), from its package.json. */
function pgliteVersion(templateRoot: string): string {
  const manifest = path.join(templateRoot, "..", "..", "..", "package.json");
  const peers = (JSON.parse(readFileSync(manifest, "utf8")) as { peerDependencies?: Record<string, string> }).peerDependencies;
  const version = peers?.[pglite];
  if (version === undefined) throw new Error(`${manifest} has no peerDependencies["${pglite}"]`);
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
