// The three packages are released together at one version, and create-chargeguard runs the chargeguard it depends on:
// a published create-chargeguard without that dependency finds no CLI, and one that names another version scaffolds
// with a CLI the release did not test.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
}
const manifestOf = (directory: string) => JSON.parse(readFileSync(path.join(root, directory, "package.json"), "utf8")) as Manifest;
const chargeguard = manifestOf(".");
const eslintPlugin = manifestOf("eslint-plugin");
const createChargeguard = manifestOf("create-chargeguard");

describe("package versions", () => {
  it("gives chargeguard, eslint-plugin-chargeguard and create-chargeguard one version", () => {
    expect(chargeguard.version).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
    expect([eslintPlugin.name, eslintPlugin.version]).toEqual(["eslint-plugin-chargeguard", chargeguard.version]);
    expect([createChargeguard.name, createChargeguard.version]).toEqual(["create-chargeguard", chargeguard.version]);
  });

  it("makes create-chargeguard depend on exactly that chargeguard, and on nothing else", () => {
    expect(createChargeguard.dependencies).toEqual({ chargeguard: chargeguard.version });
  });

  it("links that dependency to this checkout in package-lock.json (chargeguard is not fetched from the registry)", () => {
    const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version?: string; dependencies?: Record<string, string>; resolved?: string; link?: boolean }>;
    };
    expect(lock.packages[""]?.version).toBe(chargeguard.version);
    expect(lock.packages["create-chargeguard"]?.dependencies).toEqual(createChargeguard.dependencies);
    expect(lock.packages["node_modules/chargeguard"]).toEqual({ resolved: "", link: true });
  });
});
