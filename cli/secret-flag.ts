// Secrets stay off the command line: every user on the host sees a process's arguments (`ps`, /proc/<pid>/cmdline),
// and shells keep them in history. A flag that takes a connection string or a database URL refuses a value carrying a
// secret (a SharedAccessKey, a password in the URL: anything runtime/core/text/redact.ts would hide) and points to the
// environment variable or the `<flag>-file` option, which reads the value from a file (e.g. a mounted secret).
import { readFileSync } from "node:fs";
import { redactSecrets } from "../runtime/index.js";
import { refuseTogether, UsageError } from "./exit-codes.js";

export interface SecretFlag {
  /** e.g. "--connection-string" */
  flag: string;
  /** The environment variable read when neither the flag nor its file is given, e.g. SERVICEBUS_CONNECTION_STRING. */
  envName: string;
  value: string | undefined;
  file: string | undefined;
}

/** The flag's value (refused when it carries a secret), else its file's content, else undefined (the caller reads env). */
export function secretFlagValue({ flag, envName, value, file }: SecretFlag): string | undefined {
  refuseTogether([flag, value], [`${flag}-file`, file], "give the value once");
  if (value !== undefined && redactSecrets(value) !== value) {
    throw new UsageError(
      `${flag} carries a secret, which every user of this host can read from the process list: set ${envName} in the environment or pass ${flag}-file <path> instead`,
    );
  }
  if (file === undefined) return value;
  let text: string;
  try {
    text = readFileSync(file, "utf8").trim();
  } catch (error) {
    throw new UsageError(`${flag}-file: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  if (text === "") throw new UsageError(`${flag}-file: ${file} is empty`);
  return text;
}
