import { invalidRequest } from "./stripe-failures.js";
import type { FormObject, FormValue } from "./form.js";
import type { Metadata } from "./objects.js";

// Typed readers over decoded form parameters, answering bad input with Stripe's own 400 codes and messages.

export function rejectUnknown(params: FormObject, allowed: ReadonlySet<string>): void {
  for (const name of Object.keys(params)) {
    if (!allowed.has(name)) throw invalidRequest(`Received unknown parameter: ${name}`, { code: "parameter_unknown", param: name });
  }
}

export function optionalString(params: FormObject, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || value === "") return undefined;
  if (typeof value !== "string") throw invalidRequest(`Invalid string: ${name} must be a string`, { code: "parameter_invalid_string", param: name });
  return value;
}

export function requiredString(params: FormObject, name: string): string {
  const value = optionalString(params, name);
  if (value === undefined) throw missing(name);
  return value;
}

export function optionalInteger(params: FormObject, name: string, range: { min?: number; max?: number } = {}): number | undefined {
  const raw = optionalString(params, name);
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw)) throw invalidRequest(`Invalid integer: ${raw}`, { code: "parameter_invalid_integer", param: name });
  const value = Number(raw);
  if (range.min !== undefined && value < range.min) {
    throw invalidRequest(`This value must be greater than or equal to ${range.min}.`, { code: "parameter_invalid_integer", param: name });
  }
  if (range.max !== undefined && value > range.max) {
    throw invalidRequest(`This value must be less than or equal to ${range.max}.`, { code: "parameter_invalid_integer", param: name });
  }
  return value;
}

export function requiredInteger(params: FormObject, name: string, range: { min?: number; max?: number } = {}): number {
  const value = optionalInteger(params, name, range);
  if (value === undefined) throw missing(name);
  return value;
}

export function optionalBoolean(params: FormObject, name: string): boolean | undefined {
  const raw = optionalString(params, name);
  if (raw === undefined) return undefined;
  if (raw === "true") return true;
  if (raw === "false") return false;
  throw invalidRequest(`Invalid boolean: ${raw}`, { code: "parameter_invalid_boolean", param: name });
}

export function optionalEnum<T extends string>(params: FormObject, name: string, values: readonly T[]): T | undefined {
  const raw = optionalString(params, name);
  if (raw === undefined) return undefined;
  if (!(values as readonly string[]).includes(raw)) {
    throw invalidRequest(`Invalid ${name}: must be one of ${values.join(", ")}`, { code: "parameter_invalid_string", param: name });
  }
  return raw as T;
}

export function optionalHash(params: FormObject, name: string): FormObject | undefined {
  const value = params[name];
  if (value === undefined || value === "") return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw invalidRequest(`Invalid hash: ${name} must be a hash`, { param: name });
  return value;
}

export function currency(params: FormObject): string {
  const value = requiredString(params, "currency").toLowerCase();
  if (!/^[a-z]{3}$/.test(value)) throw invalidRequest(`Invalid currency: ${value}. Stripe currencies are three-letter ISO codes.`, { param: "currency" });
  return value;
}

/** Stripe's limits: at most 50 keys, keys up to 40 characters, values up to 500; an empty value unsets a key. */
export function metadata(params: FormObject): Metadata {
  const hash = optionalHash(params, "metadata");
  const result: Metadata = {};
  if (!hash) return result;
  const keys = Object.keys(hash);
  if (keys.length > 50) throw invalidRequest("Metadata can have at most 50 keys.", { param: "metadata" });
  for (const key of keys) {
    const value: FormValue | undefined = hash[key];
    if (typeof value !== "string") throw invalidRequest(`Invalid metadata value for ${key}: must be a string`, { param: `metadata[${key}]` });
    if (key.length > 40) throw invalidRequest(`Metadata keys can be at most 40 characters: ${key}`, { param: `metadata[${key}]` });
    if (value.length > 500) throw invalidRequest(`Metadata values can be at most 500 characters (${key})`, { param: `metadata[${key}]` });
    if (value !== "") result[key] = value;
  }
  return result;
}

function missing(name: string) {
  return invalidRequest(`Missing required param: ${name}.`, { code: "parameter_missing", param: name });
}
