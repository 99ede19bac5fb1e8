// The flag value parsers the commands share. A refusal says what is allowed; cli/usage-style.ts adds the command, the
// flag and the value given: `chargeguard reconcile: --limit "0" is invalid; allowed: a whole number from 1 up`.
import { InvalidArgumentError } from "commander";

/** A parser's refusal, phrased as what the flag accepts. */
export function allowed(what: string): InvalidArgumentError {
  return new InvalidArgumentError(`allowed: ${what}`);
}

/** A whole number in [min, max] (max absent: no upper bound). */
export function wholeNumber(min: number, max?: number): (value: string) => number {
  const range = max === undefined ? `a whole number from ${min.toLocaleString("en-US")} up` : `a whole number from ${min.toLocaleString("en-US")} to ${max.toLocaleString("en-US")}`;
  return (value) => {
    const parsed = /^\s*-?\d+\s*$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || (max !== undefined && parsed > max)) throw allowed(range);
    return parsed;
  };
}

/** A repeatable flag's values, in order. Its default is undefined, not [] (which help would show as `(default: [])`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
