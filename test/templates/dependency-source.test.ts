// Where a new project takes chargeguard from: vendored from this copy unless it was published (its stamp), the flags
// over the default, and the stamp `npm publish` writes and removes. Installing from the packs is vendor.e2e.test.ts's.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dependencySource, publishStampPath, runningChargeguard, type ChargeguardCopy } from "../../templates/index.js";

const checkout = path.resolve(import.meta.dirname, "../..");
const scratch = mkdtempSync(path.join(tmpdir(), "chargeguard-dependency-source-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const unpublished: ChargeguardCopy = { root: "/opt/chargeguard", version: "0.3.0", published: false };
const published: ChargeguardCopy = { ...unpublished, published: true };

describe("dependencySource", () => {
  it("vendors an unpublished copy by default and says why; a published one depends on the registry", () => {
    const vendored = dependencySource({}, unpublished);
    expect(vendored.vendor).toBe("/opt/chargeguard");
    expect(vendored.note).toMatch(/^Vendored: .* packed from \/opt\/chargeguard into vendor\/ \(chargeguard 0\.3\.0 is not on the npm registry yet\)/);
    const registry = dependencySource({}, published);
    expect(registry.vendor).toBeUndefined();
    expect(registry.note).toMatch(/\^0\.3\.0 from the npm registry/);
  });

  it("--no-vendor takes the registry, warning when this copy is not on it; --vendor [checkout] packs, even a published copy", () => {
    expect(dependencySource({ vendor: false }, unpublished)).toMatchObject({ note: expect.stringMatching(/does not serve this version yet .* fails with a 404/) });
    expect(dependencySource({ vendor: false }, unpublished).vendor).toBeUndefined();
    expect(dependencySource({ vendor: false }, published).note).not.toMatch(/404/);
    expect(dependencySource({ vendor: true }, published).vendor).toBe("/opt/chargeguard");
    expect(dependencySource({ vendor: "../other" }, unpublished)).toMatchObject({ vendor: "../other", note: expect.stringContaining("(--vendor)") });
  });

  it("--link depends on the checkout and vendors nothing by default (with --vendor, the scaffolder refuses the pair)", () => {
    expect(dependencySource({ link: "../.." }, unpublished).vendor).toBeUndefined();
    expect(dependencySource({ link: "../..", vendor: true }, unpublished).vendor).toBe("/opt/chargeguard");
  });
});

describe("the publish stamp", () => {
  it("this checkout runs as an unpublished chargeguard at its own version", () => {
    const { version } = JSON.parse(readFileSync(path.join(checkout, "package.json"), "utf8")) as { version: string };
    expect(runningChargeguard()).toEqual({ root: checkout, version, published: existsSync(path.join(checkout, publishStampPath)) });
  });

  it("npm publish writes it before packing and removes it after; only a stamp naming the copy's version counts", () => {
    const manifest = JSON.parse(readFileSync(path.join(checkout, "package.json"), "utf8")) as { scripts: Record<string, string>; files: string[] };
    expect(manifest.scripts.prepublishOnly).toBe("node scripts/publish-stamp.mjs");
    expect(manifest.scripts.postpublish).toBe("node scripts/publish-stamp.mjs --remove");
    expect(manifest.files).toContain(publishStampPath);
    // The script run on a copy of the package (it stamps the package it lives in).
    const copy = path.join(scratch, "package");
    mkdirSync(path.join(copy, "scripts"), { recursive: true });
    mkdirSync(path.join(copy, "templates"));
    copyFileSync(path.join(checkout, "scripts", "publish-stamp.mjs"), path.join(copy, "scripts", "publish-stamp.mjs"));
    writeFileSync(path.join(copy, "package.json"), JSON.stringify({ name: "chargeguard", version: "0.3.0" }));
    const from = path.join(copy, "templates");
    expect(runningChargeguard(from).published).toBe(false);
    execFileSync(process.execPath, [path.join(copy, "scripts", "publish-stamp.mjs")], { encoding: "utf8" });
    expect(runningChargeguard(from)).toEqual({ root: copy, version: "0.3.0", published: true });
    // A stamp a failed publish left behind does not vouch for the next version.
    writeFileSync(path.join(copy, "package.json"), JSON.stringify({ name: "chargeguard", version: "0.4.0" }));
    expect(runningChargeguard(from).published).toBe(false);
    execFileSync(process.execPath, [path.join(copy, "scripts", "publish-stamp.mjs"), "--remove"]);
    expect(existsSync(path.join(copy, publishStampPath))).toBe(false);
  });
});
