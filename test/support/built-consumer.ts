// A built generated consumer (`dist/examples/<example>/src/main.js`) started as `npm start` starts it, in a directory
// of its own (its embedded database, ./.data, is its own), with only the environment given: what it printed, and how
// it exited. The telemetry end-to-end tests start one per export choice.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir } from "node:fs/promises";

export interface BuiltConsumer {
  child: ChildProcess;
  /** Its stdout and stderr so far. */
  output: () => string;
  exited: Promise<number | null>;
}

export async function startBuiltConsumer(main: string, cwd: string, env: Record<string, string | undefined>): Promise<BuiltConsumer> {
  let output = "";
  await mkdir(cwd);
  const child = spawn(process.execPath, [main], { cwd, env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.on("error", (error) => (output += `spawn failed: ${error.message}\n`));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Stops what a failed test left running (it would hold its data directory). */
export async function killRunning(children: ChildProcess[]): Promise<void> {
  const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
  await Promise.all(running.map((child) => new Promise((resolve) => child.once("exit", resolve).kill("SIGKILL"))));
}
