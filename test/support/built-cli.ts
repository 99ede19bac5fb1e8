// The `chargeguard` CLI built for a test: compiled into a scratch directory (only cli/index.ts and what it imports),
// so the test neither waits for nor disturbs the shared dist/, and other rooms' type errors do not stop the emit.
// `runCli` spawns it as an operator would and returns its exit code and output.
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { copyRunTimeFiles } from "../../scripts/run-time-files.mjs";

const root = join(import.meta.dirname, "../..");

export interface BuiltCli {
  path: string;
  remove(): void;
}

export function buildCli(): BuiltCli {
  const scratch = mkdtempSync(join(tmpdir(), "chargeguard-cli-"));
  const outDir = join(scratch, "dist");
  writeFileSync(
    join(scratch, "tsconfig.json"),
    JSON.stringify({
      extends: join(root, "tsconfig.base.json"),
      compilerOptions: { rootDir: root, outDir, noEmitOnError: false, declaration: false, sourceMap: false, incremental: false },
      files: [join(root, "cli/index.ts")],
    }),
  );
  symlinkSync(join(root, "node_modules"), join(scratch, "node_modules"));
  const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(scratch, "tsconfig.json")], { encoding: "utf8" });
  const path = join(outDir, "cli/index.js");
  if (!existsSync(path)) throw new Error(`CLI did not build:\n${tsc.stdout}${tsc.stderr}`);
  // What the code reads beside itself (the guard's migrations), as `npm run build` copies it.
  copyRunTimeFiles(root, outDir);
  // The CLI reads its version from the nearest package.json, and the generated consumer the proving ground runs
  // imports "chargeguard/runtime" by the package's self-reference: its exports ("./dist/...") resolve from here.
  copyFileSync(join(root, "package.json"), join(scratch, "package.json"));
  return { path, remove: () => rmSync(scratch, { recursive: true, force: true }) };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to its end (stdin closed, not a TTY), with `env` over the test's environment. */
export function runCli(cli: BuiltCli, args: string[], options: { env?: Record<string, string | undefined>; cwd?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...options.env };
    for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
    const child = spawn(process.execPath, [cli.path, ...args], { cwd: options.cwd ?? root, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`chargeguard ${args.join(" ")} did not end within ${options.timeoutMs ?? 60_000} ms\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
