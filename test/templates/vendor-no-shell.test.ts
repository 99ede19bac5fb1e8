// Vendoring packs with npm and no shell (#44: reported unconfirmed, settled here): on Windows the old code ran
// `npm pack --pack-destination <project>/vendor` through cmd.exe with the path unquoted, so a project path with a
// space, "&" or "%VAR%" would be split or run as commands. Now npm is node running npm-cli.js on every platform.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { npmCommand, packInto } from "../../templates/vendor.js";

const root = path.resolve(import.meta.dirname, "../..");
const scratch = mkdtempSync(path.join(tmpdir(), "chargeguard-vendor-shell-"));
const platform = Object.getOwnPropertyDescriptor(process, "platform") as PropertyDescriptor;
afterEach(() => Object.defineProperty(process, "platform", platform));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("vendoring runs npm without a shell", () => {
  it("is node and npm-cli.js, for Windows too, never a .cmd", () => {
    const [program, cli] = npmCommand();
    expect(program).toBe(process.execPath);
    expect(cli).toMatch(/npm-cli\.js$/);
    expect(() => npmCommand("C:\\\\nowhere\\\\node.exe", "win32", "")).toThrow(/npm-cli\.js is not beside/);
  });

  it("finds npm-cli.js through the npm on PATH when node came without npm (the registry's node binaries)", () => {
    const bare = mkdtempSync(path.join(tmpdir(), "chargeguard-bare-node-"));
    const [program, cli] = npmCommand(path.join(bare, "bin/node"), "linux");
    expect(program).toBe(path.join(bare, "bin/node"));
    expect(cli).toMatch(/npm-cli\.js$/);
    expect(npmCommand(path.join(bare, "bin/node"), "linux", "")).toEqual(["npm"]);
    rmSync(bare, { recursive: true, force: true });
  });

  it("packs into a project whose path a shell would split or expand, with the process reading as Windows", async () => {
    // Reading as win32, the old code asked for a shell (cmd.exe, absent here: it failed); the new one needs none.
    Object.defineProperty(process, "platform", { ...platform, value: "win32" });
    const project = path.join(scratch, "my app & co %PATH% $(touch pwned)");
    const packed = await packInto(root, project);
    Object.defineProperty(process, "platform", platform);
    expect(packed.chargeguard).toMatch(/^file:vendor\/chargeguard-.*\.tgz$/);
    expect(readdirSync(path.join(project, "vendor")).sort()).toEqual([path.basename(packed.chargeguard), path.basename(packed.eslintPlugin)].sort());
    expect(readdirSync(scratch)).toEqual([path.basename(project)]);
  }, 120_000);
});
