// `chargeguard new consumer DIR` from this checkout, with no flag: chargeguard is not published, so the packages are
// packed into vendor/ by default (said in the output), installed from the packs (their own dependencies from the npm
// cache), then the project's type-check, lint and tests, and the image's install step run on exactly what the
// Dockerfile copies; the installed (unpublished) package vendors itself the same way, a published one (its stamp)
// depends on the registry; `--vendor <checkout>` for a --db postgres consumer.
import { existsSync, lstatSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIT_COMMAND } from "../../infra/components/audit-job.js";
import { startStripeEmulator } from "../../sandbox/index.js";
import { forbiddenIn, SIZE_GOALS, sizeOf } from "../../scripts/footprint/install-size.mjs";
import { publishStampPath } from "../../templates/index.js";
import { checkout, cli, ensureBuilt, inProject as inDir, run } from "../support/generated-project.js";

let scratch: string;
let project: string;

beforeAll(async () => {
  await ensureBuilt();
  scratch = await mkdtemp(path.join(tmpdir(), "chargeguard-vendor-"));
  project = path.join(scratch, "usage-billing");
}, 900_000);
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("a consumer project with chargeguard vendored in", () => {
  it("by default packs both packages into vendor/, depends on the packs, and says so", async () => {
    const { stdout } = await run(process.execPath, [cli, "new", "consumer", project], inDir(scratch, 120_000));
    expect(stdout).toContain("Created usage-billing");
    expect(stdout).toContain(`Vendored: chargeguard and eslint-plugin-chargeguard packed from ${checkout} into vendor/ (chargeguard 0.1.0 is not on the npm registry yet)`);
    expect(stdout).toContain("--no-vendor depends on it instead");
    expect((await readdir(path.join(project, "vendor"))).sort()).toEqual(["chargeguard-0.1.0.tgz", "eslint-plugin-chargeguard-0.1.0.tgz"]);
    const manifest = JSON.parse(await readFile(path.join(project, "package.json"), "utf8"));
    expect(manifest.dependencies.chargeguard).toBe("file:vendor/chargeguard-0.1.0.tgz");
    expect(manifest.devDependencies["eslint-plugin-chargeguard"]).toBe("file:vendor/eslint-plugin-chargeguard-0.1.0.tgz");
    const dockerfile = await readFile(path.join(project, "Dockerfile"), "utf8");
    expect(dockerfile).toMatch(/COPY package\.json package-lock\.json \.\/\nCOPY vendor \.\/vendor\nRUN npm ci --omit=dev/);
    expect(dockerfile).toMatch(/^FROM node:22[\w.-]*-slim AS build$/m);
    expect((await readFile(path.join(project, ".dockerignore"), "utf8")).split("\n")).not.toContain("vendor");
  }, 120_000);

  it("installs from the packs (a copy, not a link to the checkout) and builds", async () => {
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], inDir(project, 400_000));
    expect(lstatSync(path.join(project, "node_modules/chargeguard")).isSymbolicLink()).toBe(false);
    expect(existsSync(path.join(project, "node_modules/chargeguard/dist/runtime/index.d.ts"))).toBe(true);
    const lock = JSON.parse(await readFile(path.join(project, "package-lock.json"), "utf8"));
    expect(lock.packages["node_modules/chargeguard"].resolved).toBe("file:vendor/chargeguard-0.1.0.tgz");
    expect(existsSync(path.join(project, "dist", "main.js"))).toBe(true);
  }, 400_000);

  it("type-checks, lints with zero findings, and passes its tests", async () => {
    await run("npm", ["run", "typecheck"], inDir(project, 180_000));
    const { stdout: lint } = await run("npx", ["eslint", ".", "--format", "json"], inDir(project, 180_000));
    expect((JSON.parse(lint) as { messages: unknown[] }[]).flatMap((result) => result.messages)).toEqual([]);
    const { stdout } = await run("npm", ["test"], inDir(project, 300_000));
    expect(stdout).toMatch(/Tests\s+\d+ passed/);
  }, 600_000);

  it("the installed package, not published, vendors itself by default; stamped as published, it depends on the registry", async () => {
    const installed = path.join(project, "node_modules", "chargeguard");
    const bin = path.join(installed, "dist", "cli", "index.js");
    const again = path.join(scratch, "from-installed");
    const { stdout } = await run(process.execPath, [bin, "new", "consumer", again], inDir(project, 120_000));
    expect(stdout).toContain(`packed from ${installed} into vendor/ (chargeguard 0.1.0 is not on the npm registry yet)`);
    expect((await readdir(path.join(again, "vendor"))).sort()).toEqual(["chargeguard-0.1.0.tgz", "eslint-plugin-chargeguard-0.1.0.tgz"]);
    expect(JSON.parse(await readFile(path.join(again, "package.json"), "utf8")).devDependencies["eslint-plugin-chargeguard"]).toBe("file:vendor/eslint-plugin-chargeguard-0.1.0.tgz");

    // What `npm publish` leaves in the published package (prepublishOnly: scripts/publish-stamp.mjs, tested in
    // dependency-source.test.ts); written here into the installed copy, never into this checkout's shared dist/.
    await writeFile(path.join(installed, publishStampPath), JSON.stringify({ name: "chargeguard", version: "0.1.0" }));
    const registry = path.join(scratch, "from-published");
    const published = await run(process.execPath, [bin, "new", "consumer", registry], inDir(project, 120_000));
    expect(published.stdout).toContain("Dependencies: chargeguard and eslint-plugin-chargeguard ^0.1.0 from the npm registry");
    expect(existsSync(path.join(registry, "vendor"))).toBe(false);
    expect(JSON.parse(await readFile(path.join(registry, "package.json"), "utf8")).dependencies.chargeguard).toBe("^0.1.0");
  }, 240_000);

  it("the image's install step works offline on exactly what the Dockerfile copies", async () => {
    const context = path.join(scratch, "image");
    await mkdir(context);
    for (const entry of ["package.json", "package-lock.json", "vendor"]) await cp(path.join(project, entry), path.join(context, entry), { recursive: true });
    await run("npm", ["ci", "--omit=dev", "--ignore-scripts", "--offline", "--no-audit", "--no-fund"], inDir(context, 400_000));
    expect(existsSync(path.join(context, "node_modules/chargeguard/dist/runtime/index.js"))).toBe(true);
    expect(existsSync(path.join(context, "node_modules/eslint-plugin-chargeguard"))).toBe(false);
    // The embedded database is this consumer's choice (the default --db pglite): PGlite, and still no Pulumi or TypeScript.
    expect(existsSync(path.join(context, "node_modules/@electric-sql/pglite/package.json"))).toBe(true);
    expect(forbiddenIn(path.join(context, "node_modules"), "pglite")).toEqual([]);
  }, 400_000);
});

describe("a --db postgres consumer's production install from the packs", () => {
  let context: string;

  beforeAll(async () => {
    const postgresProject = path.join(scratch, "usage-billing-postgres");
    await run(process.execPath, [cli, "new", "consumer", postgresProject, "--queue", "usage-billing", "--db", "postgres", "--vendor", checkout], inDir(scratch, 120_000));
    context = path.join(scratch, "image-postgres");
    await mkdir(context);
    for (const entry of ["package.json", "vendor"]) await cp(path.join(postgresProject, entry), path.join(context, entry), { recursive: true });
    await run("npm", ["install", "--omit=dev", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund"], inDir(context, 400_000));
  }, 600_000);

  it("holds no @pulumi/*, no @electric-sql/pglite and no typescript", () => {
    expect(existsSync(path.join(context, "node_modules/chargeguard/dist/runtime/index.js"))).toBe(true);
    expect(existsSync(path.join(context, "node_modules/stripe/package.json"))).toBe(true);
    expect(forbiddenIn(path.join(context, "node_modules"), "postgres")).toEqual([]);
  });

  it("meets the size goal: at most 150 MB of node_modules, of which the chargeguard package at most 10 MB", () => {
    expect(sizeOf(path.join(context, "node_modules")), "node_modules, bytes").toBeLessThanOrEqual(SIZE_GOALS.production);
    expect(sizeOf(path.join(context, "node_modules/chargeguard"))).toBeLessThanOrEqual(SIZE_GOALS.chargeguard);
  });

  it("loads the runtime, and an embedded database it did not install is refused naming the package", async () => {
    const probe =
      'const { Guard, ConfigurationError } = await import("chargeguard/runtime");' +
      "try { const guard = await Guard.open({ inMemory: true }); await guard.close(); console.log('opened'); }" +
      "catch (error) { console.log(error instanceof ConfigurationError ? `refused: ${error.message}` : `other: ${error}`); }";
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", probe], inDir(context, 60_000));
    expect(stdout).toMatch(/^refused: .*install @electric-sql\/pglite to use the embedded database/);
  }, 60_000);

  it("runs the nightly audit job's own command, and the operator tools, without Pulumi", async () => {
    const stripe = await startStripeEmulator();
    try {
      const [command, ...args] = AUDIT_COMMAND as [string, ...string[]];
      const env = { ...inDir(context, 60_000).env, STRIPE_API_KEY: "rk_test_sandbox", STRIPE_API_BASE: stripe.apiBase };
      const { stdout } = await run(command, args, { ...inDir(context, 60_000), env });
      expect(JSON.parse(stdout)).toMatchObject({ groups: [], summary: { examined: 0, groups: 0 } });
      for (const tool of [["reconcile", "--help"], ["dlq", "peek", "--help"]]) {
        const { stdout: help } = await run("npx", ["--no-install", "chargeguard", ...tool], inDir(context, 60_000));
        expect(help).toContain("Usage: chargeguard");
      }
    } finally {
      await stripe.stop();
    }
  }, 120_000);

  it("chargeguard plan without Pulumi exits 2 naming what to install", async () => {
    const failure = await run(process.execPath, ["node_modules/chargeguard/dist/cli/index.js", "plan", "--config-file", "Pulumi.dev.yaml"], inDir(context, 60_000)).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain("chargeguard plan needs @pulumi/pulumi");
  }, 60_000);
});
