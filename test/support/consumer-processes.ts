// Replicas of a consumer as separate processes, started the way a user starts one (`node dist/.../main.js` with the
// run contract's environment and nothing else from this test run), their output kept for the assertions, and stopped
// the way Container Apps stops one (SIGTERM, then SIGKILL after the grace period).
import { spawn, type ChildProcess } from "node:child_process";

export interface ReplicaProcess {
  readonly child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  stop(graceMs?: number): Promise<number | null>;
}

export function startReplicaProcess(main: string, env: Record<string, string>, cwd: string): ReplicaProcess {
  const child = spawn(process.execPath, [main], { cwd, env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    output: () => output,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const kill = setTimeout(() => child.kill("SIGKILL"), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(kill);
      }
    },
  };
}

/** Waits until the replica printed a line matching `pattern`, or fails with its output. */
export async function printed(replica: ReplicaProcess, pattern: RegExp, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!pattern.test(replica.output())) {
    if (replica.child.exitCode !== null) throw new Error(`the replica exited with ${replica.child.exitCode} before printing ${pattern}:\n${replica.output()}`);
    if (Date.now() > until) throw new Error(`the replica did not print ${pattern} within ${timeoutMs} ms:\n${replica.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
