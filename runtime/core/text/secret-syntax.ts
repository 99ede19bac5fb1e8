// The one reading of the strings that carry secrets, spelled as the SDKs read them, so that redaction, the CLI's
// refusal of secrets as flags and the key-shape checks see every spelling an SDK accepts:
// - a Service Bus connection string as @azure/core-amqp's parseConnectionString reads it (the whole text trimmed,
//   split on ";", empty parts skipped, each name and value trimmed, the value everything after the first "=", so
//   `SharedAccessKey =K`, `SharedAccessKey= K` and a tab before "=" are all a key);
// - a URL's user info as pg-connection-string (WHATWG URL) reads it: up to the LAST "@" of the authority, so a raw
//   "@" in a password (`postgres://billing:Held@Out@host/db`, which pg reads whole) is user info too;
// - a Stripe key as the text stripped of surrounding whitespace (an operator's `" sk_live_..."` is a live key).

/** A connection string's part: the raw text around "=", kept so that a rewrite changes only the value. */
export interface ConnectionStringPart {
  /** The name as the SDK reads it (trimmed). */
  name: string;
  /** The value as the SDK reads it (trimmed, may hold "="). */
  value: string;
  /** The part as written, up to and including its first "=". */
  rawName: string;
  /** The part as written after its first "=". */
  rawValue: string;
}

/**
 * The parts of `text` read as @azure/core-amqp reads a connection string, or undefined when the SDK would refuse it
 * as malformed (a non-empty part without "=", or with an empty name). Empty parts are skipped, as the SDK does.
 */
export function connectionStringParts(text: string): ConnectionStringPart[] | undefined {
  const parts: ConnectionStringPart[] = [];
  for (const raw of text.split(";")) {
    if (raw.trim() === "") continue;
    const at = raw.indexOf("=");
    if (at === -1) return undefined;
    const name = raw.slice(0, at).trim();
    if (name === "") return undefined;
    parts.push({ name, value: raw.slice(at + 1).trim(), rawName: raw.slice(0, at + 1), rawValue: raw.slice(at + 1) });
  }
  return parts.length === 0 ? undefined : parts;
}

/**
 * Names whose values are secrets, compared case-insensitively (the SDK's own names are case-sensitive: reading more
 * spellings as secret costs nothing). SharedAccessKeyName and the like end in "Name" and are not secrets.
 */
export const secretNamePattern = /^[a-z]*(?:key|password|passwd|pwd|secret|token|signature|sig)$/i;

/** scheme:// at the start of a URL (after whitespace, as pg and `new URL` skip it). */
const urlStart = /^\s*[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Where the user info of the URL `text` ends (the index of its "@"), or -1 when it has none. The authority runs to
 * the first "/" after "://"; its user info to the last "@" before that, as the WHATWG parser reads it. A "?" or "#"
 * before that "@" is read as user info too (pg refuses such a URL, but its error would still quote the text).
 */
export function urlUserInfoEnd(text: string): number {
  const start = urlStart.exec(text);
  if (!start) return -1;
  const authorityStart = start[0].length;
  const slash = text.indexOf("/", authorityStart);
  const authority = text.slice(authorityStart, slash === -1 ? text.length : slash);
  const at = authority.lastIndexOf("@");
  return at === -1 ? -1 : authorityStart + at;
}

/** A Stripe key as it is meant: without the whitespace a copy and paste or an env file leaves around it. */
export function stripeKeyText(key: string): string {
  return key.trim();
}
