// `chargeguard reconcile --flows <module>`: the consumer's own flows (a generated consumer's src/flow.ts, built), so
// the records it began are finished by its code, not the built-in flow of the same name. A module exports `flow` (one
// flow adapter, as the template's src/flow.ts does) or `flows` (adapters by name); they replace the built-in ones of
// their names, the built-in flows stay for the rest.
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { FlowRegistry } from "../runtime/operator/index.js";
import { UsageError } from "./exit-codes.js";

interface AdapterShape {
  name: string;
  execute: unknown;
  classify: unknown;
}

const isAdapter = (value: unknown): value is AdapterShape =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as AdapterShape).name === "string" &&
  typeof (value as AdapterShape).execute === "function" &&
  typeof (value as AdapterShape).classify === "function";

export async function consumerFlows(modulePath: string, builtIn: FlowRegistry): Promise<{ flows: FlowRegistry; names: string[] }> {
  const file = path.resolve(modulePath);
  if (!existsSync(file)) throw new UsageError(`--flows: no module at ${file} (a generated consumer's is dist/flow.js, after npm run build)`);
  let exported: Record<string, unknown>;
  try {
    exported = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`--flows: ${file} does not load: ${error instanceof Error ? error.message : String(error)}`);
  }
  const named = typeof exported.flows === "object" && exported.flows !== null ? Object.values(exported.flows) : [];
  const adapters = [exported.flow, exported.default, ...named].filter(isAdapter);
  if (adapters.length === 0) {
    throw new UsageError(`--flows: ${file} exports no flow adapter (export const flow = { name, calls, execute, classify }, as a generated consumer's src/flow.ts does, or flows by name)`);
  }
  const own = Object.fromEntries(adapters.map((adapter) => [adapter.name, adapter])) as FlowRegistry;
  return { flows: { ...builtIn, ...own }, names: Object.keys(own) };
}
