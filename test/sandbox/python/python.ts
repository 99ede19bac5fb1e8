// Debian's Python clients (python3-azure, python3-uamqp, python3-stripe, python3-qpid-proton, python3-psycopg2) for
// /usr/bin/python3, the interpreter Debian's packages are built for (a pyenv python3 earlier on PATH has none of
// them). `.ci/run` installs them when missing; without them the tests that need them are skipped, saying why.
import { execFile, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startServiceBusEmulator, type ServiceBusEmulator, type ServiceBusEmulatorOptions } from "../../../sandbox/index.js";

export type PythonClients = { ok: true; executable: string } | { ok: false; reason: string };

const debianPackages = "python3-azure python3-uamqp python3-stripe python3-qpid-proton python3-psycopg2";

/** The interpreter (env CHARGEGUARD_PYTHON, else /usr/bin/python3) when it imports every module named. */
export function pythonWith(modules: string[]): PythonClients {
  const executable = process.env.CHARGEGUARD_PYTHON ?? "/usr/bin/python3";
  const probe = spawnSync(executable, ["-c", `import ${modules.join(", ")}`], { encoding: "utf8", timeout: 30_000 });
  if (probe.error) return { ok: false, reason: `${executable} cannot run (${probe.error.message}): install ${debianPackages}` };
  if (probe.status !== 0) {
    const missing = /No module named '([^']+)'/.exec(probe.stderr)?.[1] ?? probe.stderr.trim().split("\n").pop();
    return { ok: false, reason: `${executable} lacks ${missing}: apt-get install ${debianPackages} (.ci/run does)` };
  }
  return { ok: true, executable };
}

/** Runs a script of this folder with `settings` (JSON in CHECK_SETTINGS); resolves to its parsed JSON stdout. */
export function runScript(executable: string, script: string, settings: object, timeoutMs: number): Promise<Record<string, { ok: boolean; detail: string }>> {
  const path = fileURLToPath(new URL(script, import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(
      executable,
      [path],
      { env: { ...process.env, CHECK_SETTINGS: JSON.stringify(settings) }, encoding: "utf8", timeout: timeoutMs, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        const last = stdout.trim().split("\n").pop() ?? "";
        try {
          resolve(JSON.parse(last) as Record<string, { ok: boolean; detail: string }>);
        } catch {
          reject(new Error(`${script} printed no result (${error?.message ?? "exit 0"}):\n${stdout.slice(-2000)}\n${stderr.slice(-4000)}`));
        }
      },
    );
  });
}

/**
 * A Service Bus emulator whose AMQPS listener has 127.0.0.1:5671: azure-servicebus 7.8 dials only 5671, and another
 * sandbox (a CLI test's `chargeguard sandbox`, which defaults to it, or another file of these tests) may hold it for a
 * while, so a taken port is tried again until `timeoutMs`.
 */
export async function startOnAmqpsPort(options: ServiceBusEmulatorOptions, timeoutMs: number): Promise<ServiceBusEmulator> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await startServiceBusEmulator({ ...options, tls: { port: 5671 } });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE" || Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
