import { readFileSync, statSync } from "node:fs";
import { resolveSpecifier } from "./module-resolution.js";

/**
 * What a module of the same project says about Stripe, read from its text: whether it uses the `stripe` package,
 * the classes it declares that extend the Stripe client, and the names it binds to a client (`export const
 * payments = new PaymentsClient()`). Without type information this one step across files is how a client made in a
 * configuration module (`lib/stripe.ts`, a NestJS provider) and imported or injected elsewhere is recognised; with
 * a program the checker answers instead. Reading another file's text is what eslint-plugin-import does too; the
 * facts are cached per path and file modification time, so an editor's long-lived ESLint sees edits.
 */
export interface StripeModuleFacts {
  usesStripe: boolean;
  /** Classes declared here that extend the Stripe client (directly or through another of them). */
  subclasses: ReadonlySet<string>;
  /** Variables holding a client (`new Stripe(...)`, `Stripe(...)`, `new Subclass(...)`); `default` for a default export. */
  clients: ReadonlySet<string>;
  /**
   * Interfaces and type aliases declared here that are a slice of the client, their members taken from Stripe's own
   * types (`type Payments = Pick<Stripe, "paymentIntents">`, `interface Payments { charges: Stripe["charges"] }`).
   */
  clientTypes: ReadonlySet<string>;
}

const cache = new Map<string, { mtimeMs: number; facts: StripeModuleFacts }>();

/** The facts of a project import (`./lib/payments.js`, a path alias) of `fromFile`, or `null` when it is not a file found on disk. */
export function localModuleFacts(fromFile: string, specifier: string): StripeModuleFacts | null {
  const file = resolveSpecifier(fromFile, specifier);
  if (!file) return null;
  const mtimeMs = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
  if (mtimeMs === undefined) return null;
  const cached = cache.get(file);
  if (cached?.mtimeMs === mtimeMs) return cached.facts;
  const facts = stripeFacts(readFileSync(file, "utf8"));
  cache.set(file, { mtimeMs, facts });
  return facts;
}

const STRIPE_IMPORT = /import\s+(?:type\s+)?(?:(\w+)\s*(?:,\s*\{[^}]*\})?|\*\s+as\s+(\w+)|\{[^}]*\bStripe(?:\s+as\s+(\w+))?[^}]*\})\s+from\s+(["'])stripe\4/g;
const STRIPE_REQUIRE = /(?:const|let|var)\s+(\w+)\s*=\s*require\(\s*(["'])stripe\2\s*\)/g;

export function stripeFacts(text: string): StripeModuleFacts {
  const constructors = new Set<string>();
  for (const match of text.matchAll(STRIPE_IMPORT)) constructors.add(match[1] ?? match[2] ?? match[3] ?? "Stripe");
  for (const match of text.matchAll(STRIPE_REQUIRE)) constructors.add(match[1]!);
  const usesStripe = constructors.size > 0 || /require\(\s*(["'])stripe\1\s*\)/.test(text);
  const subclasses = new Set<string>();
  if (!usesStripe) return { usesStripe, subclasses, clients: new Set(), clientTypes: new Set() };
  // A subclass of a subclass: repeat until nothing new extends a known client class.
  for (let grew = true; grew; ) {
    grew = false;
    for (const match of text.matchAll(/class\s+(\w+)\s+extends\s+([\w.]+)/g)) {
      const parent = match[2]!.split(".").pop()!;
      if (!subclasses.has(match[1]!) && (constructors.has(match[2]!) || constructors.has(parent) || subclasses.has(parent))) {
        subclasses.add(match[1]!);
        grew = true;
      }
    }
  }
  const makers = [...constructors, ...subclasses].join("|");
  const clients = new Set<string>();
  // `new Stripe(`, `Stripe(`, `new S.Stripe(` (a namespace import), `new Payments(` (a subclass).
  const maker = `(?:new\\s+)?(?:${makers})(?:\\.Stripe)?\\s*\\(`;
  const made = new RegExp(`(?:const|let|var)\\s+(\\w+)(?:\\s*:[^=;]+)?\\s*=\\s*${maker}`, "g");
  for (const match of text.matchAll(made)) clients.add(match[1]!);
  if (new RegExp(`export\\s+default\\s+${maker}`).test(text)) clients.add("default");
  const defaultName = /export\s+default\s+(\w+)\s*;/.exec(text)?.[1];
  if (defaultName && clients.has(defaultName)) clients.add("default");
  for (const match of text.matchAll(/export\s*\{([^}]*)\}/g)) {
    for (const part of match[1]!.split(",")) {
      const [local, exported] = part.trim().split(/\s+as\s+/);
      if (local && exported && clients.has(local)) clients.add(exported);
    }
  }
  return { usesStripe, subclasses, clients, clientTypes: clientTypesOf(text, [...constructors]) };
}

/** The client's resources that move money: a type made of them is a slice of the client worth following. */
export const CLIENT_RESOURCES: ReadonlySet<string> = new Set(["paymentIntents", "charges", "refunds", "invoices", "payouts", "transfers", "subscriptions"]);
const RESOURCES = [...CLIENT_RESOURCES].join("|");

function clientTypesOf(text: string, constructors: readonly string[]): Set<string> {
  const names = constructors.map((name) => name.replace(/\$/g, "\\$")).join("|");
  const stripeType = `(?:${names})(?:\\.Stripe)?`;
  const picked = new RegExp(`^(?:Pick|Omit|Partial|Required|Readonly)<\\s*${stripeType}\\s*[,>]`);
  const member = new RegExp(`["']?\\b(?:${RESOURCES})\\b["']?\\??\\s*:\\s*(?:\\w+<\\s*)?${stripeType}\\s*\\[`);
  const found = new Set<string>();
  for (const match of text.matchAll(/\btype\s+(\w+)(?:<[^>=]*>)?\s*=\s*([^;]+)/g)) {
    if (picked.test(match[2]!.trim()) || member.test(match[2]!)) found.add(match[1]!);
  }
  for (const match of text.matchAll(/\binterface\s+(\w+)([^{]*)\{([^}]*)\}/g)) {
    if (picked.test(match[2]!.replace(/^[^]*?\bextends\s+/, "").trim()) || member.test(match[3]!)) found.add(match[1]!);
  }
  return found;
}
