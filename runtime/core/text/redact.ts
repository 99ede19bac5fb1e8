// Secrets out of text an operator or a log reads: one function for configuration errors, `--print-settings` and log
// lines. It keeps what identifies an endpoint (scheme, host, port, path, a key's kind) and hides:
// - user info in URLs (scheme://user:password@host -> scheme://[redacted]@host);
// - values of settings named like a secret: SharedAccessKey=, SharedAccessSignature=, AccountKey=, Password=,
//   sslpassword=, token=, secret=, sig= (connection strings and query strings alike);
// - Stripe-shaped keys (sk_, rk_, and any <prefix>_live_ / <prefix>_test_ key): the prefix says where it charges, the
//   rest is hidden;
// - bearer tokens and JWTs (an Entra token is one).

export const REDACTED = "[redacted]";

const rules: [RegExp, string | ((...match: string[]) => string)][] = [
  // scheme://userinfo@ (userinfo: anything up to @ that holds no slash or whitespace)
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, `$1${REDACTED}@`],
  // name=value where the name ends like a secret's (SharedAccessKeyName= and the like do not: they end in "Name")
  [/\b([a-z]*(?:key|password|passwd|pwd|secret|token|signature|sig))=("[^"]*"|[^;&\s"']+)/gi, `$1=${REDACTED}`],
  [/\bBearer\s+[^\s"',;]+/gi, `Bearer ${REDACTED}`],
  [/\beyJ[\w-]+\.[\w-]+\.[\w-]*/g, REDACTED],
  // <prefix>_live_... / <prefix>_test_... and sk_/rk_ keys of any mode: keep the prefix (it says where it charges).
  [/\b((?:[a-z]{2,8}_(?:live|test)_)|(?:sk|rk)_)[A-Za-z0-9_]{4,}/g, `$1${REDACTED}`],
];

/** `text` with every secret-shaped part replaced by [redacted]. */
export function redactSecrets(text: string): string {
  let redacted = text;
  for (const [pattern, replacement] of rules) redacted = redacted.replace(pattern, replacement as string);
  return redacted;
}
