#!/usr/bin/env node
// `npm create chargeguard <dir> -- [options]` runs `chargeguard new consumer <dir> [options]`: the same scaffolder,
// the same flags and prompts. It runs the chargeguard CLI in a child process so both entry points stay one program.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The `chargeguard` CLI of the chargeguard this package depends on (its "bin", so a moved CLI is still found). In the
 * repository the dependency is the checkout itself (package-lock.json links it); without that link, as in a checkout
 * installed before the dependency existed, the checkout this workspace lives in.
 */
function chargeguardCli() {
  let manifestPath;
  try {
    manifestPath = createRequire(import.meta.url).resolve("chargeguard/package.json");
  } catch {
    manifestPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "package.json");
  }
  const bin = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, "utf8")).bin?.chargeguard : undefined;
  return path.join(path.dirname(manifestPath), typeof bin === "string" ? bin : path.join("dist", "cli", "index.js"));
}

const cli = chargeguardCli();
const args = process.argv.slice(2);
if (args.length === 0 || args[0] === "--help" || args[0] === "-h") {
  console.log("usage: npm create chargeguard <dir> -- [--name N] [--queue Q] [--currency C] [--db pglite|postgres]");
  console.log("                                        [--vault env|keybrake] [--flow payment-intent|charge|invoice|meter-event]");
  console.log("                                        [--link PATH] [--stack S] [--config-file F]");
  console.log("                                        [--vendor [CHECKOUT] | --no-vendor]   (default: vendor unless this chargeguard was published)");
  if (args.length === 0) process.exitCode = 1;
} else if (!existsSync(cli)) {
  console.error(`create-chargeguard: ${cli} is missing: build chargeguard first (npm run build)`);
  process.exitCode = 1;
} else {
  const result = spawnSync(process.execPath, [cli, "new", "consumer", ...args], { stdio: "inherit" });
  if (result.error) {
    console.error(`create-chargeguard: could not run ${cli}: ${result.error.message}`);
    process.exitCode = 1;
  } else {
    process.exitCode = result.status ?? 1;
  }
}
