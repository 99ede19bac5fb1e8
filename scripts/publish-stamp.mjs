// `npm publish`'s prepublishOnly (and postpublish with --remove): the stamp that tells chargeguard's scaffolder this
// copy is on the registry (templates/dependency-source.ts). Written just before npm packs the package, so only the
// published tarball carries it; removed after, so the checkout (and any `npm pack` or `--vendor` of it) stays
// unpublished and its scaffolds keep vendoring. It names the version: a stamp left behind by a failed publish does
// not vouch for the next version.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const stamp = path.join(root, "dist", "published.json");

if (process.argv.includes("--remove")) {
  rmSync(stamp, { force: true });
} else {
  const { name, version } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  mkdirSync(path.dirname(stamp), { recursive: true });
  writeFileSync(stamp, `${JSON.stringify({ name, version }, null, 2)}\n`);
  console.log(`publish-stamp: ${path.relative(root, stamp)} names ${name}@${version} (projects scaffolded by this copy depend on the registry)`);
}
