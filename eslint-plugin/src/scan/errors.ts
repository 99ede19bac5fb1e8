/** Every failure of `chargeguard scan` is a ScanError; the CLI maps each kind to its exit code. */
export class ScanError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The command was called wrongly: a path that does not exist, an unknown format (exit 2). */
export class ScanUsageError extends ScanError {}

/** ast-grep is missing or failed (exit 2: the scan could not run, so nothing can be said about the code). */
export class ScanToolError extends ScanError {}
