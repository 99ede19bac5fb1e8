#!/usr/bin/env node
// node scripts/pack-release.mjs <dest>: packs the three packages of a release into <dest>, the same way in the
// release's build job and in its clean-build check (scripts/compare-packs.mjs compares the two). chargeguard is
// packed with the publish stamp (`npm publish <tarball>` runs no prepublishOnly, so the stamp that tells the
// scaffolder it is on the registry goes in here: scripts/publish-stamp.mjs) and the stamp is removed after.
// No shell: each command is run with its arguments as a list.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The commands, in order: [program, args]. create-chargeguard depends on exactly this chargeguard, so it goes last. */
export function packSteps(dest) {
  const pack = (...workspace) => ["npm", ["pack", "--pack-destination", dest, ...workspace]];
  return [
    pack("--workspace", "eslint-plugin"),
    [process.execPath, [path.join(root, "scripts/publish-stamp.mjs")]],
    pack(),
    [process.execPath, [path.join(root, "scripts/publish-stamp.mjs"), "--remove"]],
    pack("--workspace", "create-chargeguard"),
  ];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dest = process.argv[2];
  if (!dest) {
    console.error("usage: node scripts/pack-release.mjs <dest>");
    process.exit(2);
  }
  mkdirSync(dest, { recursive: true });
  const removeStamp = packSteps(dest)[3];
  try {
    for (const [program, args] of packSteps(path.resolve(dest))) execFileSync(program, args, { cwd: root, stdio: "inherit" });
  } finally {
    // A failed pack must not leave the stamp in dist/: the checkout would then scaffold as if it were published.
    execFileSync(removeStamp[0], removeStamp[1], { cwd: root, stdio: "inherit" });
  }
}
