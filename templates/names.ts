// What the scaffolder accepts for a project name, a queue name and a currency, each with a message that names
// the problem. npm's package-name rules and Service Bus's entity-name rules, checked here without a dependency.
import { builtinModules } from "node:module";

/** npm package name rules: <= 214 chars, lower case, URL-safe, optional @scope/, no leading dot or underscore. */
export function packageNameProblem(name: string): string | undefined {
  if (name.length === 0) return "the project name is empty";
  if (name.length > 214) return `the project name "${name}" is longer than 214 characters (npm's limit)`;
  if (name !== name.trim()) return `the project name "${name}" has leading or trailing spaces`;
  if (name.toLowerCase() !== name) return `the project name "${name}" has capital letters (npm names are lower case)`;
  const bare = name.startsWith("@") ? name.slice(name.indexOf("/") + 1) : name;
  if (name.startsWith("@") && (!name.includes("/") || name.indexOf("/") === 1)) {
    return `the project name "${name}" is a scope without a name (expected @scope/name)`;
  }
  if (bare.startsWith(".") || bare.startsWith("_")) {
    return `the project name "${name}" starts with "${bare[0]}" (npm names cannot)`;
  }
  if (!/^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/.test(name)) {
    return `the project name "${name}" has characters npm does not allow (use a-z, 0-9, "-", ".", "_", "~")`;
  }
  if (bare === "node_modules" || bare === "favicon.ico" || builtinModules.includes(bare)) {
    return `the project name "${name}" is reserved (a Node.js core module or an npm reserved name)`;
  }
  return undefined;
}

/** Service Bus queue names: 1-260 chars of letters, digits, ".", "-", "_", "/", starting and ending alphanumeric. */
export function queueNameProblem(queue: string): string | undefined {
  if (queue.length === 0) return "the queue name is empty";
  if (queue.length > 260) return `the queue name "${queue}" is longer than 260 characters (Service Bus's limit)`;
  if (!/^[A-Za-z0-9._/-]+$/.test(queue)) {
    return `the queue name "${queue}" has characters Service Bus does not allow (use letters, digits, ".", "-", "_", "/")`;
  }
  if (!/^[A-Za-z0-9]/.test(queue) || !/[A-Za-z0-9]$/.test(queue)) {
    return `the queue name "${queue}" must start and end with a letter or a digit`;
  }
  if (queue.includes("//")) return `the queue name "${queue}" has an empty path segment ("//")`;
  return undefined;
}

/**
 * ISO 4217, lower case as Stripe writes it: the shape only, the same rule as the runtime's event schema (no
 * allow-list on either side; test/templates/currency-agreement.test.ts proves they agree). Stripe decides the rest.
 */
export function currencyProblem(currency: string): string | undefined {
  if (!/^[a-z]{3}$/.test(currency)) {
    return `the currency "${currency}" is not a three-letter ISO 4217 code in lower case (e.g. "usd", "eur", "jpy")`;
  }
  return undefined;
}
