// `chargeguard reconcile` in this process, as its command parses it: the consumer's Stripe settings set for the run
// alone, what it printed and the exit code it set.
import { Command } from "commander";
import { vi } from "vitest";
import { register } from "../../../cli/commands/reconcile.js";

/** The consumer's Stripe settings the command reads; each run sets exactly the ones it is given. */
const stripeEnv = ["STRIPE_API_KEY", "KEYBRAKE_URL", "KEYBRAKE_API_KEY", "BILLING_PERIOD_CAP_CENTS"] as const;

export async function runReconcile(args: string[], env: Partial<Record<(typeof stripeEnv)[number], string>>): Promise<{ out: string; exitCode: number | undefined }> {
  const saved = { env: Object.fromEntries(stripeEnv.map((name) => [name, process.env[name]])), db: process.env.DATABASE_URL, code: process.exitCode };
  for (const name of stripeEnv) {
    if (env[name] === undefined) delete process.env[name];
    else process.env[name] = env[name];
  }
  delete process.env.DATABASE_URL;
  process.exitCode = undefined;
  const lines: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
  try {
    const program = new Command("chargeguard").exitOverride().configureOutput({ writeErr: () => {} });
    register(program);
    await program.parseAsync(["reconcile", ...args], { from: "user" });
    return { out: lines.join("\n"), exitCode: process.exitCode === undefined ? undefined : Number(process.exitCode) };
  } finally {
    log.mockRestore();
    process.exitCode = saved.code;
    for (const name of stripeEnv) {
      if (saved.env[name] === undefined) delete process.env[name];
      else process.env[name] = saved.env[name];
    }
    if (saved.db !== undefined) process.env.DATABASE_URL = saved.db;
  }
}
