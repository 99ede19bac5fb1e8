// Secrets out of text an operator or a log reads: one function for configuration errors, `--print-settings` and log
// lines. It keeps what identifies an endpoint (scheme, host, port, path, a key's kind) and hides:
// - user info in URLs (scheme://user:password@host -> scheme://[redacted]@host), up to the last "@" of the authority
//   as pg reads it (secret-syntax.ts);
// - values of settings named like a secret: SharedAccessKey=, SharedAccessSignature=, AccountKey=, Password=,
//   sslpassword=, token=, secret=, sig= (connection strings and query strings alike, any case, spaces or tabs around
//   "=" as the Azure SDK trims them). A text that is a connection string as a whole is read part by part as the SDK
//   reads it, so a value is hidden up to its ";" whatever it holds;
// - Stripe-shaped keys (sk_, rk_, and any <prefix>_live_ / <prefix>_test_ key): the prefix says where it charges, the
//   rest is hidden;
// - bearer tokens and JWTs (an Entra token is one).
import { connectionStringParts, secretNamePattern, urlUserInfoEnd } from "./secret-syntax.js";

export const REDACTED = "[redacted]";

const rules: [RegExp, string | ((...match: string[]) => string)][] = [
  // scheme://userinfo@: in running text the authority also ends at whitespace; its user info runs to its last "@".
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s]*@/gi, `$1${REDACTED}@`],
  // name=value where the name ends like a secret's (SharedAccessKeyName= and the like do not: they end in "Name")
  [/\b([a-z]*(?:key|password|passwd|pwd|secret|token|signature|sig))([ \t]*)=[ \t]*("[^"]*"|[^;&\s"']+)/gi, `$1$2=${REDACTED}`],
  [/\bBearer\s+[^\s"',;]+/gi, `Bearer ${REDACTED}`],
  [/\beyJ[\w-]+\.[\w-]+\.[\w-]*/g, REDACTED],
  // <prefix>_live_... / <prefix>_test_... and sk_/rk_ keys of any mode: keep the prefix (it says where it charges).
  [/\b((?:[a-z]{2,8}_(?:live|test)_)|(?:sk|rk)_)[A-Za-z0-9_]{4,}/g, `$1${REDACTED}`],
];

/** `text` with every secret-shaped part replaced by [redacted]. */
export function redactSecrets(text: string): string {
  // A connection string or URL is one line: each line is read whole on its own.
  let redacted = text.split("\n").map(redactWhole).join("\n");
  for (const [pattern, replacement] of rules) redacted = redacted.replace(pattern, replacement as string);
  return redacted;
}

/**
 * `text` read as the one string an SDK would read (a connection string, a URL): its secret parts hidden by that
 * reading, which running text's patterns cannot know (a value with spaces, a password with a space or a raw "@").
 */
function redactWhole(text: string): string {
  // The URL first: a password may hold ";" and "=", which must not be read as a connection string's parts.
  const url = redactUserInfo(text);
  const parts = url.includes(";") || /^[^=]*=/.test(url) ? connectionStringParts(url) : undefined;
  if (!parts?.some((part) => secretNamePattern.test(part.name))) return url;
  return parts.map((part) => (secretNamePattern.test(part.name) ? `${part.rawName}${REDACTED}` : `${part.rawName}${part.rawValue}`)).join(";");
}

function redactUserInfo(text: string): string {
  // A URL with spaces is one string only for pg (which encodes them); elsewhere it is running text.
  const oneUrl = /^\s*postgres(?:ql)?:\/\/[^\n]*$/i.test(text) || !/\s/.test(text.trim());
  const userInfoEnd = oneUrl ? urlUserInfoEnd(text) : -1;
  if (userInfoEnd === -1) return text;
  const schemeEnd = text.indexOf("://") + 3;
  return `${text.slice(0, schemeEnd)}${REDACTED}${text.slice(userInfoEnd)}`;
}
