// What the end-to-end tests of a generated project share: the checkout, its built CLI, and child processes run as a
// user's shell would run them (no npm or vitest variables inherited from this test run).
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

export const run = promisify(execFile);
export const checkout = path.resolve(import.meta.dirname, "../..");
export const cli = path.join(checkout, "dist", "cli", "index.js");
const built = [cli, "dist/runtime/index.js", "dist/sandbox/index.js", "dist/tuning/index.js", "eslint-plugin/dist/index.js"];

export const userEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|VITEST|TEST_DATABASE_URL$|NODE_ENV$)/i.test(name))),
  NO_COLOR: "1",
  FORCE_COLOR: "0",
};

export const inProject = (directory: string, timeoutMs: number) => ({ cwd: directory, env: userEnv, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 });

/** Generated projects link or pack this checkout's built packages: build them when a file is missing (npm test builds first). */
export async function ensureBuilt(): Promise<void> {
  if (built.some((file) => !existsSync(path.resolve(checkout, file)))) await run("npm", ["run", "build"], inProject(checkout, 900_000));
}
