// The CLI's errors and exit codes: 0 ok, 1 = the command's own "found something / failed" meaning, 2 = usage or
// configuration error (bad flags, conflicting flags, a missing setting, a database or queue that is not there), 3 = a
// command's third outcome, neither done nor failed (reconcile: billings still unknown; prove: did not settle).
import { CommanderError } from "commander";
import { ChargeguardError } from "../errors/index.js";

export const exitCodes = { ok: 0, failed: 1, usage: 2, inconclusive: 3, interrupted: 130 } as const;

/** Base class: a CLI error carries its exit code; a refusal of the kit's like every other (a ChargeguardError). */
export class CliError extends ChargeguardError {
  override name = "CliError";
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** Bad, missing or conflicting flags or settings: exit 2. */
export class UsageError extends CliError {
  override name = "UsageError";
  constructor(message: string) {
    super(message, exitCodes.usage);
  }
}

/** Refuses two flags given together, naming both. */
export function refuseTogether(first: [string, unknown], second: [string, unknown], why: string): void {
  if (first[1] !== undefined && second[1] !== undefined) throw new UsageError(`${first[0]} and ${second[0]} cannot be used together: ${why}`);
}

/**
 * The exit code for an error that reached the top: commander's own (already printed) and configuration faults are
 * usage errors. The runtime is loaded only to recognise its errors (a command that threw one has loaded it already).
 */
export async function exitCodeFor(error: unknown): Promise<number> {
  if (error instanceof CommanderError) return error.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
  if (error instanceof CliError) return error.exitCode;
  // The runtime's configuration refusals (a data directory that is not a guard's or is in use, bad settings).
  const { ConfigurationError } = await import("../runtime/index.js");
  if (error instanceof ConfigurationError) return exitCodes.usage;
  return exitCodes.failed;
}

/**
 * Every command's help ends with its exit codes: its own 0, 1 and 3, then the shared 2 (usage) and 130 (Ctrl-C:
 * Node ends on SIGINT, which a shell reports as 128 + 2). A command that stops on Ctrl-C by design says so in its 0.
 */
export function exitCodesHelp(own: { 0: string; 1?: string; 2?: string; 3?: string }, options: { interrupt?: boolean } = {}): string {
  const rows: [number, string][] = [
    [0, own[0]],
    ...(own[1] === undefined ? [] : [[1, own[1]] as [number, string]]),
    [2, `usage or configuration error (one line on stderr): a bad, missing or conflicting flag or setting${own[2] === undefined ? "" : `, ${own[2]}`}`],
    ...(own[3] === undefined ? [] : [[3, own[3]] as [number, string]]),
    ...(options.interrupt === false ? [] : [[130, "interrupted (Ctrl-C, SIGINT)"] as [number, string]]),
  ];
  return `\nExit codes:\n${rows.map(([code, meaning]) => `  ${String(code).padEnd(4)} ${meaning}`).join("\n")}`;
}
