// Where a new project takes chargeguard from, so its first `npm install` works wherever the scaffolder runs. A copy
// of chargeguard that was published carries a stamp (`dist/published.json`, written by the package's prepublishOnly
// script, scripts/publish-stamp.mjs): its projects depend on the registry. Any other copy (a checkout, a pack installed
// from a file, a version bumped but not yet published) is not on the registry, and a registry dependency would fail
// with a 404: its projects get the packs of this very copy in vendor/ (vendor.ts), unless told otherwise.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The stamp's path in the package, written at publish time only. */
export const publishStampPath = "dist/published.json";

export interface ChargeguardCopy {
  /** The package's root directory (a checkout, or node_modules/chargeguard). */
  root: string;
  version: string;
  /** The stamp names this version: the registry serves it. */
  published: boolean;
}

/** The chargeguard package this code runs from: the nearest package.json named chargeguard above this file. */
export function runningChargeguard(from: string = path.dirname(fileURLToPath(import.meta.url))): ChargeguardCopy {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; version?: string };
      if (name === "chargeguard" && typeof version === "string") return { root: dir, version, published: stampedVersion(dir) === version };
    }
    if (path.dirname(dir) === dir) throw new Error(`no chargeguard package.json above ${from}`);
  }
}

function stampedVersion(root: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(path.join(root, publishStampPath), "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** `--vendor [checkout]` (true: without a path), `--no-vendor` (false), absent (undefined); and `--link`. */
export interface DependencyFlags {
  vendor?: string | boolean;
  link?: string;
}

export interface DependencySource {
  /** The checkout or package to pack into vendor/; absent: the registry (or `--link`). */
  vendor?: string;
  /** What to tell the user about it (printed after "Created"). */
  note?: string;
  /** The copy the decision was made for. */
  copy: ChargeguardCopy;
}

/**
 * The dependency source for the flags: `--link` and `--vendor <checkout>` as given; `--no-vendor` the registry (with a
 * warning when this copy is not on it); `--vendor` alone this copy; nothing: the registry when this copy was
 * published, else this copy vendored, said in the note.
 */
export function dependencySource(flags: DependencyFlags, copy: ChargeguardCopy = runningChargeguard()): DependencySource {
  if (flags.link !== undefined) return flags.vendor === undefined || flags.vendor === false ? { copy } : { vendor: vendorPath(flags.vendor, copy), copy };
  if (flags.vendor === false) {
    if (copy.published) return { copy, note: `Dependencies: chargeguard and eslint-plugin-chargeguard ^${copy.version} from the npm registry.` };
    return {
      copy,
      note:
        `Dependencies: chargeguard@^${copy.version} from the npm registry (--no-vendor), which does not serve this version yet ` +
        "(this copy was not published): npm install fails with a 404 unless your registry has it (templates/README.md, \"Shipping before (or without) a public registry\").",
    };
  }
  if (flags.vendor === undefined && copy.published) {
    return { copy, note: `Dependencies: chargeguard and eslint-plugin-chargeguard ^${copy.version} from the npm registry (--vendor packs this copy into vendor/ instead).` };
  }
  const vendor = vendorPath(flags.vendor ?? true, copy);
  const why = flags.vendor === undefined ? `chargeguard ${copy.version} is not on the npm registry yet` : "--vendor";
  return { vendor, copy, note: vendoredNote(vendor, why) };
}

function vendorPath(flag: string | boolean, copy: ChargeguardCopy): string {
  return typeof flag === "string" ? flag : copy.root;
}

function vendoredNote(from: string, why: string): string {
  return (
    `Vendored: chargeguard and eslint-plugin-chargeguard packed from ${from} into vendor/ (${why}), and package.json points at the packs, ` +
    "so npm install and docker build need no registry serving them: commit vendor/. Once chargeguard is on your registry, --no-vendor depends on it instead."
  );
}
