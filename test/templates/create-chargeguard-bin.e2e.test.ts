// create-chargeguard as npm installs it for `npm create chargeguard`: beside it in node_modules the chargeguard it
// depends on, whose CLI it must run (the checkout fallback would find no CLI here). A stand-in chargeguard whose "bin"
// echoes its arguments shows which CLI ran and with what.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const scratch = mkdtempSync(path.join(tmpdir(), "create-chargeguard-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function install(): string {
  const modules = path.join(scratch, "node_modules");
  cpSync(path.join(root, "create-chargeguard", "bin"), path.join(modules, "create-chargeguard", "bin"), { recursive: true });
  cpSync(path.join(root, "create-chargeguard", "package.json"), path.join(modules, "create-chargeguard", "package.json"));
  const dependency = path.join(modules, "chargeguard");
  mkdirSync(path.join(dependency, "bin-elsewhere"), { recursive: true });
  const manifest = { name: "chargeguard", version: "0.0.0-installed", type: "module", bin: { chargeguard: "bin-elsewhere/cli.js" }, exports: { "./package.json": "./package.json" } };
  writeFileSync(path.join(dependency, "package.json"), JSON.stringify(manifest));
  writeFileSync(path.join(dependency, "bin-elsewhere", "cli.js"), "console.log(JSON.stringify({ ran: import.meta.url, args: process.argv.slice(2) }));\n");
  return path.join(modules, "create-chargeguard", "bin", "create-chargeguard.js");
}

describe("create-chargeguard's bin", () => {
  it("runs `chargeguard new consumer` from the chargeguard it depends on, found by that package's bin", () => {
    const result = spawnSync(process.execPath, [install(), "my-consumer", "--db", "postgres"], { cwd: scratch, encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const ran = JSON.parse(result.stdout) as { ran: string; args: string[] };
    expect(ran.ran).toMatch(/\/node_modules\/chargeguard\/bin-elsewhere\/cli\.js$/);
    expect(ran.args).toEqual(["new", "consumer", "my-consumer", "--db", "postgres"]);
  });
});
