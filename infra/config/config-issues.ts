// Turns zod issues into one sentence per problem, each led by the config path it concerns (`chargeguard:app.consumers[0].maxReplicas`).
import type { z } from "zod";

export function pathOf(key: string, path: PropertyKey[]): string {
  return path.reduce<string>(
    (text, part) => (typeof part === "number" ? `${text}[${part}]` : `${text}.${String(part)}`),
    key,
  );
}

export function issuesOf(key: string, error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      return `${pathOf(key, issue.path)}: unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    }
    return `${pathOf(key, issue.path)}: ${issue.message}`;
  });
}

/** A value written as `key: { secure: <ciphertext> }` in Pulumi.<stack>.yaml (`pulumi config set --secret --path`). */
export interface SecureValue {
  secure: string;
}

export const isSecureValue = (value: unknown): value is SecureValue =>
  typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 1 && typeof (value as { secure?: unknown }).secure === "string";

/** Paths (as pathOf writes them) of every secure value inside `value`. */
export function securePaths(key: string, value: unknown, path: (string | number)[] = []): string[] {
  if (isSecureValue(value)) return [pathOf(key, path)];
  if (Array.isArray(value)) return value.flatMap((item, index) => securePaths(key, item, [...path, index]));
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([child, item]) => securePaths(key, item, [...path, child]));
  }
  return [];
}
