// Reads a stack's config from Pulumi.<stack>.yaml (or any file of that shape) and validates it. No Pulumi import:
// `chargeguard sandbox` and `chargeguard plan` use it without loading the Azure SDK.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { parseDocument } from "yaml";
import { parseStackConfig, StackConfigError, type StackConfig } from "./stack-config.js";

export interface StackConfigLocation {
  /** Stack name: reads `Pulumi.<stack>.yaml` in cwd. */
  stack?: string;
  /** A config file of the same shape (`config:` map); wins over `stack` for the path. */
  configFile?: string;
  /** Directory of the Pulumi project, default process.cwd(). */
  cwd?: string;
}

export interface StackConfigFile {
  stack: string;
  file: string;
  /** The `config:` map as written, keyed `namespace:key`, values structured (YAML-parsed). */
  values: Record<string, unknown>;
}

export interface LoadedStackConfig extends StackConfig {
  stack: string;
  file: string;
}

/** Top-level keys Pulumi itself writes into a stack file besides `config`. */
const STACK_FILE_KEYS = new Set(["config", "environment", "encryptionsalt", "secretsprovider", "encryptedkey"]);

function stackFromFile(file: string): string {
  const match = /^Pulumi\.(.+)\.ya?ml$/.exec(basename(file));
  return match?.[1] ?? basename(file).replace(/\.ya?ml$/, "");
}

/** Reads the raw `config:` map of a stack file. Throws a StackConfigError for a missing file or broken YAML. */
export function readStackConfigFile(location: StackConfigLocation): StackConfigFile {
  const cwd = resolve(location.cwd ?? process.cwd());
  if (!location.stack && !location.configFile) {
    throw new StackConfigError("stack config", ["give a stack name (reads Pulumi.<stack>.yaml) or a config file path"]);
  }
  const file = location.configFile ? resolve(cwd, location.configFile) : join(cwd, `Pulumi.${location.stack}.yaml`);
  const stack = location.stack ?? stackFromFile(file);
  if (!existsSync(file)) {
    const dir = dirname(file);
    const stacks = existsSync(dir) ? readdirSync(dir).filter((name) => /^Pulumi\..+\.ya?ml$/.test(name)) : [];
    throw new StackConfigError(file, [
      `file not found${stacks.length ? ` (stack files here: ${stacks.join(", ")})` : " (no Pulumi.<stack>.yaml files here)"}`,
    ]);
  }
  const document = parseDocument(readFileSync(file, "utf8"), { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    throw new StackConfigError(file, document.errors.map((error) => `YAML: ${error.message.split("\n")[0]}`));
  }
  const root: unknown = document.toJS();
  if (root === null || typeof root !== "object" || Array.isArray(root)) {
    throw new StackConfigError(file, ["expected a YAML map with a `config:` section"]);
  }
  const problems = Object.keys(root)
    .filter((key) => !STACK_FILE_KEYS.has(key))
    .map((key) => `${key}: unknown top-level key (a stack file has config:, environment:, encryptionsalt:, secretsprovider:)`);
  const config = (root as Record<string, unknown>).config;
  if (config === undefined || config === null || typeof config !== "object" || Array.isArray(config)) {
    problems.push("config: required, a map of `namespace:key: value`");
  }
  if (problems.length > 0) throw new StackConfigError(file, problems);
  return { stack, file, values: config as Record<string, unknown> };
}

/** Reads and validates a stack's config; each queue carries its `tuning`. Throws a StackConfigError listing every problem. */
export function loadStackConfig(location: StackConfigLocation): LoadedStackConfig {
  const { stack, file, values } = readStackConfigFile(location);
  return { stack, file, ...parseStackConfig(values, file, stack) };
}

/** Pulumi passes config values as strings: structured values as JSON. */
export function toPulumiConfig(values: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [key, typeof value === "string" ? value : JSON.stringify(value)]),
  );
}

/** The inverse of toPulumiConfig, for a program reading `pulumi.runtime.allConfig()`. */
export function fromPulumiConfig(config: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => {
      // Pulumi hands every value over as text: maps and lists as JSON, `true`/`false` as the words.
      if (value === "true" || value === "false") return [key, value === "true"];
      if (!/^\s*[[{]/.test(value)) return [key, value];
      try {
        return [key, JSON.parse(value) as unknown];
      } catch {
        return [key, value];
      }
    }),
  );
}
