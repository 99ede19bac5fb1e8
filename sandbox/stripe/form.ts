import { invalidRequest } from "./stripe-failures.js";

/** A decoded `application/x-www-form-urlencoded` body (or query) in Stripe's bracket notation. */
export type FormValue = string | FormObject | FormValue[];
export interface FormObject {
  [key: string]: FormValue;
}

const bracketKey = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;

/**
 * Decodes `metadata[period]=2026-10&expand[0]=latest_charge` into `{ metadata: { period: "2026-10" },
 * expand: ["latest_charge"] }`, the way the stripe SDK's `queryStringifyRequestData` encodes it.
 */
export function parseForm(encoded: string): FormObject {
  const root: FormObject = Object.create(null) as FormObject;
  for (const [rawKey, value] of new URLSearchParams(encoded)) {
    const match = bracketKey.exec(rawKey);
    if (!match?.[1]) throw invalidRequest(`Invalid parameter name: ${rawKey}`, { param: rawKey });
    const path = [match[1], ...[...(match[2] ?? "").matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] ?? "")];
    assign(root, path, value, rawKey);
  }
  return toArrays(root) as FormObject;
}

function assign(target: FormObject, path: string[], value: string, rawKey: string): void {
  let node = target;
  for (let i = 0; i < path.length - 1; i++) {
    const segment = path[i] === "" ? String(Object.keys(node).length) : (path[i] as string);
    const next = node[segment];
    if (next === undefined) {
      const child = Object.create(null) as FormObject;
      node[segment] = child;
      node = child;
    } else if (typeof next === "object" && !Array.isArray(next)) {
      node = next;
    } else {
      throw invalidRequest(`Invalid parameter: ${rawKey} mixes a value and a hash`, { param: rawKey });
    }
  }
  const last = path[path.length - 1] as string;
  const leaf = last === "" ? String(Object.keys(node).length) : last;
  if (typeof node[leaf] === "object") throw invalidRequest(`Invalid parameter: ${rawKey} mixes a value and a hash`, { param: rawKey });
  node[leaf] = value;
}

/** Hashes whose keys are exactly 0..n-1 were arrays on the client (`expand[0]`, `expand[]`). */
function toArrays(value: FormValue): FormValue {
  if (typeof value === "string" || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  for (const key of keys) value[key] = toArrays(value[key] as FormValue);
  if (keys.length > 0 && keys.every((key, index) => key === String(index))) return keys.map((key) => value[key] as FormValue);
  return value;
}

/** The same parameters give the same string whatever their order: the idempotency layer compares these. */
export function canonicalForm(value: FormValue): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalForm).join(",")}]`;
  return `{${Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalForm(value[key] as FormValue)}`)
    .join(",")}}`;
}
