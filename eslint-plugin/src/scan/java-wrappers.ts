import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseMatches, runAstGrep } from "./ast-grep-binary.js";
import { ScanToolError } from "./errors.js";
import type { AstGrepMatch } from "./finding.js";
import { secondRunFiles } from "./candidate-files.js";
import { pythonProjectRules } from "./python-wrappers.js";

/**
 * Project-wide facts for Java: a method of the project that hands its caller's request options, or its caller's key,
 * to a Stripe call that moves money (marked by the `money-wrapper@java-*` rules) is a money call where it is called,
 * in any scanned file; the options or key its callers pass are checked there, as a Stripe call's own would be. ast-grep
 * matches one file at a time, so the call sites are found by a second run with rules written for the wrappers found.
 */
export interface MoneyWrapper {
  name: string;
  /** Index of the parameter that carries the options or the key, and how many parameters the method takes. */
  index: number;
  arity: number;
  passes: "options" | "key";
  /** Where it is declared, for the message. */
  at: string;
}

const UTILS = fileURLToPath(new URL("../../ast-grep/utils", import.meta.url));

/** Names Stripe's own calls use (checked by the per-file rules), never taken for a wrapper of the project. */
const STRIPE_NAMES = new Set(["create", "build", "builder", "setIdempotencyKey"]);

export function moneyWrappers(matches: readonly AstGrepMatch[]): MoneyWrapper[] {
  const wrappers: MoneyWrapper[] = [];
  for (const match of matches) {
    if (match.language !== "Java" || match.metadata?.role !== "money-wrapper" || !match.metadata.passes) continue;
    const name = match.metaVariables?.single?.NAME?.text;
    const passed = match.metaVariables?.single?.PASSED?.text;
    if (!name || !passed || STRIPE_NAMES.has(name)) continue;
    const parameters = parameterNames(match.text, name);
    const index = parameters.indexOf(passed);
    if (index < 0) continue;
    wrappers.push({ name, index, arity: parameters.length, passes: match.metadata.passes, at: `${match.file}:${match.range.start.line + 1}` });
  }
  return wrappers;
}

/** The parameter names of a method declaration's text: `Charge charge(final Params p, Map<K, V> m)` -> [p, m]. */
export function parameterNames(declaration: string, name: string): string[] {
  const open = declaration.indexOf("(", declaration.search(new RegExp(`\\b${name.replace(/\$/g, "\\$")}\\s*\\(`)));
  const names: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of declaration.slice(open + 1)) {
    if (char === "<" || char === "(") depth += 1;
    if (char === ">" || (char === ")" && depth > 0)) depth -= 1;
    else if (char === ")" && depth === 0) break;
    if (char === "," && depth === 0) {
      names.push(current);
      current = "";
    } else current += char;
  }
  if (current.trim()) names.push(current);
  return names.map((parameter) => /([\w$]+)\s*(\[\s*\])*\s*$/.exec(parameter.trim())?.[1] ?? "");
}

const OPTIONS_WITHOUT_KEY =
  '{ any: [{ regex: "^null$" }, { regex: "^(com\\\\.stripe\\\\.net\\\\.)?RequestOptions\\\\s*\\\\.\\\\s*getDefault\\\\(\\\\)$" }, { all: [{ regex: "^((com\\\\.stripe\\\\.net\\\\.)?RequestOptions\\\\s*\\\\.\\\\s*builder\\\\(\\\\)|new\\\\s+RequestOptions(\\\\.RequestOptions)?Builder\\\\s*\\\\(\\\\))" }, { not: { regex: "setIdempotencyKey" } }] }] }';
const UNSTABLE = "{ any: [{ matches: java-unstable-source }, { has: { stopBy: end, matches: java-unstable-source } }] }";

function ruleFor(wrapper: MoneyWrapper, number: number): string {
  const argument = `nthChild: ${wrapper.index + 1}`;
  const arity = `- has: { field: arguments, not: { has: { nthChild: ${wrapper.arity + 1} } } }\n    - has: { field: arguments, has: { nthChild: ${wrapper.arity} } }`;
  const header = (rule: string, message: string) =>
    `id: ${rule}@java-wrapper-${number}\nlanguage: java\nseverity: error\nmessage: ${JSON.stringify(message)}\nrule:\n  kind: method_invocation\n  all:\n    - has: { field: name, regex: "^${wrapper.name.replace(/\$/g, "\\\\$")}$" }\n    ${arity}\n`;
  if (wrapper.passes === "options") {
    return `${header(
      "require-idempotency-key",
      `${wrapper.name}(...) hands these request options to a Stripe call that moves money (${wrapper.at}), and they carry no idempotency key: a redelivered or resubmitted message is a new request and charges again. Pass RequestOptions.builder().setIdempotencyKey(key) with a key derived from the event's business fields.`,
    )}    - has: { field: arguments, has: { ${argument}, ${OPTIONS_WITHOUT_KEY.slice(2, -2)} } }\n`;
  }
  const message = `${wrapper.name}(...) uses this argument as the idempotency key of a Stripe call that moves money (${wrapper.at}), and it derives from a queue delivery's metadata (Service Bus or another broker's), randomness or a clock: it changes when the same billing event comes back (a redelivery, a resubmitted dead letter), and Stripe then charges again. Derive the key from the event's business fields only.`;
  return `${header("stable-idempotency-key", message)}    - any:
        - has: { field: arguments, has: { ${argument}, ${UNSTABLE.slice(2, -2)} } }
        # ... or a local variable of the calling method initialised with such a value
        - all:
            - has: { field: arguments, has: { ${argument}, kind: identifier, pattern: $KEY } }
            - inside:
                stopBy: end
                any: [{ kind: method_declaration }, { kind: lambda_expression }, { kind: constructor_declaration }]
                has: { stopBy: end, kind: variable_declarator, all: [{ has: { field: name, pattern: $KEY } }, { has: { field: value, ${UNSTABLE.slice(2, -2)} } }] }
`;
}

/** Methods of the project that return request options with no key (`options-factory@java` marks), by name. */
export function optionsFactories(matches: readonly AstGrepMatch[]): { name: string; at: string }[] {
  return matches
    .filter((match) => match.language === "Java" && match.metadata?.role === "options-factory" && match.metaVariables?.single?.NAME?.text)
    .map((match) => ({ name: match.metaVariables!.single!.NAME!.text, at: `${match.file}:${match.range.start.line + 1}` }));
}

/** A Stripe call that moves money with the result of a keyless options factory as an argument: reported on the call. */
function factoryRuleFor(factory: { name: string; at: string }, number: number): string {
  const message = `This Stripe call moves money with request options from ${factory.name}() (${factory.at}), which builds them with no idempotency key: stripe-java then sends a random key per call, so a redelivered or resubmitted message is a new request and charges again. Add setIdempotencyKey(key) with a key derived from the event's business fields to those options.`;
  return `id: require-idempotency-key@java-options-factory-${number}
language: java
severity: error
message: ${JSON.stringify(message)}
rule:
  all:
    - matches: java-stripe-money-call
    - not: { matches: java-stripe-meter-event-call }
    - has: { field: arguments, has: { kind: method_invocation, has: { field: name, regex: "^${factory.name.replace(/\$/g, "\\$")}$" } } }
`;
}

/** The rules that check the call sites of the project's Java money wrappers and keyless options factories. */
export function javaProjectRules(matches: readonly AstGrepMatch[]): string[] {
  return [
    ...moneyWrappers(matches).map((wrapper, number) => ruleFor(wrapper, number)),
    ...optionsFactories(matches).map((factory, number) => factoryRuleFor(factory, number)),
  ];
}

/**
 * The call sites of the project's money wrappers (Java and Python) whose options or key are unsafe: a second run,
 * over the files that charge or name a wrapper only (secondRunFiles), so a large project pays for the few files that
 * move money instead of a second pass over everything.
 */
export async function wrapperCallMatches(matches: readonly AstGrepMatch[], targets: readonly string[], cwd: string): Promise<AstGrepMatch[]> {
  const rules = [...javaProjectRules(matches), ...pythonProjectRules(matches)];
  if (rules.length === 0) return [];
  const files = secondRunFiles(matches, targets, cwd);
  if (files?.length === 0) return [];
  const config = mkdtempSync(path.join(tmpdir(), "chargeguard-wrappers-"));
  try {
    mkdirSync(path.join(config, "rules"));
    rules.forEach((rule, number) => writeFileSync(path.join(config, "rules", `project-${number}.yml`), rule));
    writeFileSync(path.join(config, "sgconfig.yml"), `ruleDirs: [rules]\nutilDirs: [${JSON.stringify(UTILS)}]\n`);
    const { stdout, stderr, code } = await runAstGrep(["scan", "--config", path.join(config, "sgconfig.yml"), "--json=compact", "--", ...(files ?? targets)], cwd);
    if (code !== 0 && code !== 1) throw new ScanToolError(`ast-grep failed on the wrappers' call sites (exit ${code}): ${stderr.trim().split("\n")[0] ?? ""}`);
    // One finding per call and rule: a call that splats two keyless params factories matches both factories' rules.
    const seen = new Set<string>();
    return parseMatches(stdout).filter((match) => {
      const at = `${match.ruleId.split("@")[0]}:${match.file}:${match.range.start.line}:${match.range.start.column}`;
      if (seen.has(at)) return false;
      seen.add(at);
      return true;
    });
  } finally {
    rmSync(config, { recursive: true, force: true });
  }
}
