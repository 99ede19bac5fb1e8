// The generated consumer's build context as Docker builds it: every file of the project that its .dockerignore does
// not exclude, matched by @balena/dockerignore (a port of Docker's own Go matcher, tested against `docker build`:
// a pattern matches from the context's root only, `**` at any depth). No Docker on this machine, so this is the
// closest reading of what `docker build .` would send; nested secrets must stay out (#44).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { afterAll, describe, expect, it } from "vitest";

// A CommonJS module whose types say `export default`: required, so the types and the runtime agree on the factory.
const dockerignore = createRequire(import.meta.url)("@balena/dockerignore") as typeof import("@balena/dockerignore").default;

const example = path.resolve(import.meta.dirname, "../../examples/generated-consumer");
const scratch = mkdtempSync(path.join(tmpdir(), "chargeguard-dockerignore-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every file under `dir`, relative, with "/" separators. */
function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const relative = `${prefix}${entry.name}`;
    return entry.isDirectory() ? filesUnder(path.join(dir, entry.name), `${relative}/`) : [relative];
  });
}

/** The files `docker build` would send from `dir`: each file not excluded by the .dockerignore given. */
function buildContext(dir: string, ignoreFile: string): string[] {
  const matcher = dockerignore({ ignorecase: false }).add(ignoreFile);
  return filesUnder(dir).filter((file) => !matcher.ignores(file));
}

const secrets = [
  ".env",
  ".env.production",
  "config/.env",
  "config/deep/.env.local",
  "sandbox.env",
  "ops/sandbox.env",
  "app.env",
  "deploy/app.env",
  "deploy/staging.env",
  ".npmrc",
  "packages/tool/.npmrc",
  "certs/x.key",
  "certs/nested/tls.pem",
  "certs/client.pfx",
  "logs/debug.log",
];

describe("the generated consumer's .dockerignore, read as Docker reads it", () => {
  const ignoreFile = readFileSync(path.join(example, ".dockerignore"), "utf8");

  it("keeps secrets out at any depth, sandbox.env and app.env included", () => {
    const project = path.join(scratch, "project");
    mkdirSync(project);
    for (const file of [...secrets, "src/main.ts", "package.json", "Dockerfile", "config/settings.json"]) {
      mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
      writeFileSync(path.join(project, file), "x");
    }
    const context = buildContext(project, ignoreFile);
    expect(context.filter((file) => secrets.includes(file))).toEqual([]);
    expect(context.sort()).toEqual(["Dockerfile", "config/settings.json", "package.json", "src/main.ts"]);
  });

  it("still sends everything the Dockerfile builds from in the committed example", () => {
    const context = buildContext(example, ignoreFile);
    // (package-lock.json is written by the consumer's first npm install, not committed in the example.)
    for (const needed of ["package.json", "tsconfig.json", "tsconfig.build.json", "src/main.ts", "src/consumer.ts"]) expect(context).toContain(needed);
    expect(context.some((file) => file.startsWith("test/") || file.startsWith("node_modules/"))).toBe(false);
  });
});
