// One way to turn anything thrown into a line for a log, a report or an outcome's detail. A thrown value need not be
// an Error, and an AggregateError (Node's connection errors for a host with several addresses) may carry an empty
// message with its causes inside: both must still say what went wrong.

/** `<name>: <message>` for an Error, the causes of an AggregateError without a message, else the value as a string. */
export function describeError(error: unknown): string {
  return describeWith(error, (e) => `${e.name}: ${e.message}`);
}

/** The message alone (for lines that already say what kind of failure it is), with the same fallbacks. */
export function errorMessage(error: unknown): string {
  return describeWith(error, (e) => e.message);
}

function describeWith(error: unknown, format: (error: Error) => string): string {
  if (error instanceof AggregateError && !error.message) return error.errors.map((inner) => describeWith(inner, format)).join("; ");
  return error instanceof Error ? format(error) : String(error);
}
