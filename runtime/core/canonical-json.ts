// Canonical JSON: one byte string per value, whatever the key order, so a hash of it names the value.
// Two flavours: `canonicalJson` for idempotency-key fields (strict: what a business key may be made of) and
// `canonicalDocument` for whole request documents (any JSON, keys sorted) used for fingerprints.

function fieldValue(name: string, value: unknown): string {
  if (typeof value === "string") {
    return JSON.stringify(value);
  }
  if (typeof value === "number") {
    if (Number.isNaN(value)) throw new TypeError(`field "${name}" is NaN; key fields must be strings, integers or dates`);
    if (!Number.isFinite(value)) throw new TypeError(`field "${name}" is ${value}; key fields must be finite integers`);
    if (!Number.isInteger(value)) {
      throw new TypeError(
        `field "${name}" is ${value}, not an integer; money goes in integer minor units (cents), never floats`,
      );
    }
    if (!Number.isSafeInteger(value)) {
      throw new TypeError(`field "${name}" is ${value}, beyond the safe integer range; pass it as a string`);
    }
    return JSON.stringify(value);
  }
  if (typeof value === "bigint") {
    return value.toString();
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TypeError(`field "${name}" is an invalid Date`);
    return JSON.stringify(value.toISOString());
  }
  if (value === undefined) {
    throw new TypeError(`field "${name}" is undefined; every key field must have a value`);
  }
  const kind = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
  throw new TypeError(`field "${name}" is ${kind}; key fields must be strings, integers or dates`);
}

/**
 * Canonical JSON of flat business fields: keys sorted, values limited to strings, safe integers, bigints and
 * Dates (as ISO-8601 strings). Anything that could make two equal events hash apart, or two different ones
 * alike (undefined, null, NaN, Infinity, floats, nested objects), is refused with an error naming the field.
 */
export function canonicalJson(fields: Record<string, unknown>): string {
  if (fields === null || typeof fields !== "object" || Array.isArray(fields)) {
    throw new TypeError("key fields must be a plain object of named fields");
  }
  const names = Object.keys(fields).sort();
  if (names.length === 0) throw new TypeError("key fields are empty; a key must come from business fields");
  const parts = names.map((name) => {
    if (name.length === 0) throw new TypeError("key fields include an empty field name");
    return `${JSON.stringify(name)}:${fieldValue(name, fields[name])}`;
  });
  return `{${parts.join(",")}}`;
}

/**
 * Canonical JSON of any JSON document: object keys sorted at every depth; `undefined` object members dropped
 * (as JSON and jsonb drop them); non-finite numbers, functions, symbols and bigints refused.
 */
export function canonicalDocument(value: unknown, path = "$"): string {
  if (value === null || typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`${path} is ${value}; JSON has no such number`);
    return JSON.stringify(value);
  }
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) {
    return `[${value.map((item, index) => canonicalDocument(item, `${path}[${index}]`)).join(",")}]`;
  }
  if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    const parts = Object.keys(record)
      .sort()
      .filter((name) => record[name] !== undefined)
      .map((name) => `${JSON.stringify(name)}:${canonicalDocument(record[name], `${path}.${name}`)}`);
    return `{${parts.join(",")}}`;
  }
  throw new TypeError(`${path} is a ${typeof value}; only JSON values can be stored`);
}
