import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { RuleMetadata } from "./project-facts.js";

/**
 * Spring Boot's `application*.properties`, which ast-grep has no grammar for: the same two settings the YAML rules
 * read (`rules/yaml/`), as matches in ast-grep's JSON shape so the project facts treat them alike. Language
 * `properties`, measured like YAML (a Spring Duration) and counted in the Java stack.
 */
export interface PropertiesMatch {
  file: string;
  text: string;
  lines: string;
  ruleId: string;
  message: string;
  language: string;
  metadata: RuleMetadata;
  range: { start: { line: number; column: number } };
}

/** Directories that hold no configuration of the project's own. */
const SKIPPED = new Set(["node_modules", ".git", "target", "build", "dist", "out", ".gradle", ".idea", ".tmp"]);
const PROPERTIES_FILE = /^(application|bootstrap)([-.][\w-]+)?\.properties$/;

interface Setting {
  key: RegExp;
  value: RegExp;
  ruleId: string;
  metadata: RuleMetadata;
  message: string;
}

const SETTINGS: readonly Setting[] = [
  {
    key: /(^|\.)(receive-mode|receiveMode)$/,
    value: /^receive[_-]?and[_-]?delete$/i,
    ruleId: "no-receive-and-delete@properties",
    metadata: { scope: "project" },
    message:
      "receive-mode RECEIVE_AND_DELETE removes the message when it is delivered, before the Stripe call runs and its outcome is recorded: a crash in between loses the billing event. Use peek_lock and settle after the record is written.",
  },
  {
    key: /(^|\.)(max-auto-lock-renew-duration|maxAutoLockRenewDuration)$/,
    value: /^(\d+(ms|s|m|h)?|PT[\d.HMS]+)$/i,
    ruleId: "lock-renewal-covers-stripe@properties",
    metadata: { scope: "project", measure: "lock-renewal" },
    message:
      "max-auto-lock-renew-duration is shorter than one Stripe call can take: it is a deadline, not an interval, so renewal stops while the charge is in flight, the lock lapses and another consumer charges again.",
  },
];

/** The settings' matches in the `application*.properties` files under `targets` (relative to `cwd`). */
export function springPropertiesMatches(targets: readonly string[], cwd: string): PropertiesMatch[] {
  return targets.flatMap((target) => propertiesFiles(path.resolve(cwd, target))).flatMap((file) => matchesIn(file, cwd));
}

function propertiesFiles(target: string): string[] {
  if (!statSync(target).isDirectory()) return PROPERTIES_FILE.test(path.basename(target)) ? [target] : [];
  return readdirSync(target, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : propertiesFiles(path.join(target, entry.name));
    return entry.isFile() && PROPERTIES_FILE.test(entry.name) ? [path.join(target, entry.name)] : [];
  });
}

function matchesIn(file: string, cwd: string): PropertiesMatch[] {
  const relative = path.relative(cwd, file);
  return readFileSync(file, "utf8")
    .split(/\r?\n/)
    .flatMap((line, index) => {
      const found = /^\s*([^#!=:\s][^=:\s]*)\s*[=:]\s*(.*?)\s*$/.exec(line);
      if (!found) return [];
      const [, key, value] = found as unknown as [string, string, string];
      const setting = SETTINGS.find((candidate) => candidate.key.test(key) && candidate.value.test(value));
      if (!setting) return [];
      const column = line.length - line.trimStart().length;
      return [{ file: relative, text: `${key}: ${value}`, lines: line, ruleId: setting.ruleId, message: setting.message, language: "Properties", metadata: setting.metadata, range: { start: { line: index, column } } }];
    });
}
