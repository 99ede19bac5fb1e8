#!/usr/bin/env node
// node scripts/compare-packs.mjs <packed-dir> <clean-dir>: the release's check that the tarballs the build job packed
// (after `npm ci`, every dev dependency and every test ran there) hold exactly what a clean build packs (a fresh
// checkout, `npm ci --ignore-scripts`, the compiler and nothing else). A dev dependency that changed dist/ while the
// tests ran would show as a file that differs; the publish job, the one holding id-token, waits for this check.
// Exit 0 when every tarball's files match byte for byte, 1 naming each difference, 2 on a usage or read problem.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Every file under `dir`, relative with "/" separators, sorted. */
function filesUnder(dir, prefix = "") {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(path.join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`]))
    .sort();
}

/** `tgz` unpacked into a scratch directory (tar, no shell), read by `read`, then removed. */
function withUnpacked(tgz, read) {
  const scratch = mkdtempSync(path.join(tmpdir(), "chargeguard-pack-"));
  try {
    execFileSync("tar", ["-xzf", tgz, "-C", scratch], { stdio: ["ignore", "ignore", "pipe"] });
    return read(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** What differs between the tarballs in `packedDir` and `cleanDir`: one line per tarball missing, file added, removed or changed. */
export function packDifferences(packedDir, cleanDir) {
  const tarballs = (dir) => readdirSync(dir).filter((name) => name.endsWith(".tgz")).sort();
  const packed = tarballs(packedDir);
  const clean = tarballs(cleanDir);
  if (packed.length === 0) return [`${packedDir}: no tarball`];
  const differences = [
    ...packed.filter((name) => !clean.includes(name)).map((name) => `${name}: not in the clean build`),
    ...clean.filter((name) => !packed.includes(name)).map((name) => `${name}: only in the clean build`),
  ];
  for (const name of packed.filter((tarball) => clean.includes(tarball))) {
    withUnpacked(path.join(packedDir, name), (left) =>
      withUnpacked(path.join(cleanDir, name), (right) => {
        const a = filesUnder(left);
        const b = filesUnder(right);
        for (const file of a.filter((entry) => !b.includes(entry))) differences.push(`${name}: ${file} is not in the clean build`);
        for (const file of b.filter((entry) => !a.includes(entry))) differences.push(`${name}: ${file} is missing from the packed tarball`);
        for (const file of a.filter((entry) => b.includes(entry))) {
          if (!readFileSync(path.join(left, file)).equals(readFileSync(path.join(right, file)))) differences.push(`${name}: ${file} differs from the clean build`);
        }
      }),
    );
  }
  return differences;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [packedDir, cleanDir] = process.argv.slice(2);
  if (!packedDir || !cleanDir) {
    console.error("usage: node scripts/compare-packs.mjs <packed-dir> <clean-dir>");
    process.exitCode = 2;
  } else {
    try {
      const differences = packDifferences(packedDir, cleanDir);
      for (const line of differences) console.log(line);
      console.log(differences.length === 0 ? "compare-packs: every tarball matches the clean build" : `compare-packs: ${differences.length} difference(s): not published`);
      process.exitCode = differences.length === 0 ? 0 : 1;
    } catch (error) {
      console.error(`compare-packs: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
      process.exitCode = 2;
    }
  }
}
