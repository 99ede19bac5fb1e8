// The shapes of a credential that must never sit in a resource's plain inputs, nor in what the plan prints: every
// shape the runtime's redaction knows (runtime/core/text/redact.ts: URL user info, `<name ending key, password, secret,
// token, sig...>=value`, bearer tokens and JWTs, `sk_` / `rk_` and any `<prefix>_live_` / `<prefix>_test_` key) and
// the same settings written with spaces around `=` as connection strings allow (`SharedAccessKey = ...`). infra may
// not import the runtime, so test/infra/secret-shapes.test.ts proves every sample the runtime redacts is caught here.
export const PLAIN_SECRET = "[secret]";

const SHAPES: [RegExp, string][] = [
  [/\b[a-z][a-z0-9+.-]*:\/\/[^/@\s:]+:[^/@\s]+@/i, "a URL with its password"],
  [/\b(?:SharedAccessKey|SharedAccessSignature)\s*=\s*\S/i, "a Service Bus SAS key"],
  [/\bAccountKey\s*=\s*\S/i, "a storage account key"],
  [/\b[a-z]*(?:key|password|passwd|pwd|secret|token|signature|sig)\s*=\s*(?:"[^"]+"|[^;&\s"']+)/i, "a secret setting"],
  [/\bBearer\s+[^\s"',;]+/i, "a bearer token"],
  [/\beyJ[\w-]+\.[\w-]+\.[\w-]*/, "a JWT"],
  [/\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{4,}/, "a Stripe key"],
  [/\b[a-z]{2,8}_(?:live|test)_[A-Za-z0-9_]{4,}/, "a live or test API key"],
];

/** What kind of credential `text` holds, or undefined. */
export function secretShapeIn(text: string): string | undefined {
  return SHAPES.find(([shape]) => shape.test(text))?.[1];
}

/** `value` with every string that holds a credential replaced whole by "[secret]": what the plan may print. */
export function withoutPlainSecrets<T>(value: T): T {
  if (typeof value === "string") return (secretShapeIn(value) ? PLAIN_SECRET : value) as T;
  if (Array.isArray(value)) return value.map((item) => withoutPlainSecrets(item)) as T;
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutPlainSecrets(item)])) as T;
  }
  return value;
}
