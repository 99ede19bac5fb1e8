import type { AstGrepMatch } from "./finding.js";

/**
 * Project-wide facts for Python (#42), in the way java-wrappers.ts keeps Java's: ast-grep matches one file at a time,
 * so functions are marked in a first run and their calls checked by rules written for them in a second run over the
 * whole project. Three marks: a function that hands its parameter to a Stripe charge as the idempotency key (a vendor
 * wrapper, `money-wrapper@python-key`); a function that returns a value from an unstable source (`new_key()` returning
 * `str(uuid4())` in a third module, `unstable-function@python`); a function that returns params as a dict with no key
 * (`params-factory@python`), whose result a charge takes as `**` splat.
 */
interface Marked {
  name: string;
  passed?: string;
  at: string;
}

const IDENTIFIER = /^[A-Za-z_]\w*$/;

function marked(matches: readonly AstGrepMatch[], role: string): Marked[] {
  const found: Marked[] = [];
  for (const match of matches) {
    const name = match.metaVariables?.single?.NAME?.text;
    if (match.language !== "Python" || match.metadata?.role !== role || !name || !IDENTIFIER.test(name)) continue;
    found.push({ name, passed: match.metaVariables?.single?.PASSED?.text, at: `${match.file}:${match.range.start.line + 1}` });
  }
  return found;
}

const names = (list: readonly Marked[]) => [...new Set(list.map((item) => item.name))].join("|");
const UNSTABLE_KEY = "a queue delivery's metadata (Service Bus or another broker's), randomness or a clock";

export function pythonProjectRules(matches: readonly AstGrepMatch[]): string[] {
  const unstable = marked(matches, "unstable-function");
  const wrappers = marked(matches, "money-wrapper").filter((wrapper) => wrapper.passed && IDENTIFIER.test(wrapper.passed));
  const factories = marked(matches, "params-factory");
  const unstableCall = unstable.length > 0 ? `{ kind: call, has: { field: function, regex: "(^|\\\\.)(${names(unstable)})$" } }` : null;
  const unstableValue = [
    "{ matches: python-unstable-source }",
    "{ has: { stopBy: end, matches: python-unstable-source } }",
    ...(unstableCall ? [unstableCall, `{ has: { stopBy: end, ${unstableCall.slice(2, -2)} } }`] : []),
  ].join(", ");
  const rules: string[] = [];
  if (unstableCall) {
    const where = unstable.map((item) => `${item.name}() (${item.at})`).join(", ");
    rules.push(`id: stable-idempotency-key@python-unstable-function
language: python
severity: error
message: ${JSON.stringify(`This Stripe idempotency key derives from ${UNSTABLE_KEY}, returned by ${where}: it changes when the same billing event comes back (a redelivery, a resubmitted dead letter), and Stripe then charges again. Derive the key from the event's business fields (customer, billing period, amount) only.`)}
rule:
  kind: keyword_argument
  all:
    - has: { field: name, regex: "^idempotency_key$" }
    - has: { field: value, any: [${unstableCall}, { has: { stopBy: end, ${unstableCall.slice(2, -2)} } }] }
    - inside: { kind: argument_list, inside: { kind: call, matches: python-stripe-money-call } }
`);
  }
  wrappers.forEach((wrapper, number) =>
    rules.push(`id: stable-idempotency-key@python-wrapper-${number}
language: python
severity: error
message: ${JSON.stringify(`${wrapper.name}(...) uses ${wrapper.passed} as the idempotency key of a Stripe call that moves money (${wrapper.at}), and this value derives from ${UNSTABLE_KEY}: it changes when the same billing event comes back (a redelivery, a resubmitted dead letter), and Stripe then charges again. Derive the key from the event's business fields only.`)}
rule:
  kind: keyword_argument
  all:
    - has: { field: name, regex: "^${wrapper.passed}$" }
    - has: { field: value, any: [${unstableValue}] }
    - inside: { kind: argument_list, inside: { kind: call, has: { field: function, regex: "(^|\\\\.)${wrapper.name}$" } } }
`),
  );
  // One rule per factory, so a finding names the factory its call splats; a call that splats another dict too is left
  // alone (its key may come from there), and one splatting two keyless factories is reported once (wrapperCallMatches).
  const splatOf = (pattern: string) => `{ kind: dictionary_splat, has: { kind: call, has: { field: function, regex: "(^|\\\\.)(${pattern})$" } } }`;
  factories.forEach((factory, number) =>
    rules.push(`id: require-idempotency-key@python-params-factory-${number}
language: python
severity: error
message: ${JSON.stringify(`This Stripe call moves money without an idempotency key: its params are the ** splat of ${factory.name}() (${factory.at}), which returns a dict with no idempotency_key, so a redelivered or resubmitted message is a new request and charges again. Pass idempotency_key= derived from the event's business fields.`)}
rule:
  all:
    - matches: python-stripe-money-call
    - not: { matches: python-stripe-meter-event-call }
    - has: { field: arguments, has: ${splatOf(factory.name)} }
    - not: { has: { field: arguments, has: { kind: keyword_argument, has: { field: name, regex: "^idempotency_key$" } } } }
    - not: { has: { field: arguments, all: [{ has: { kind: dictionary_splat } }, { has: { kind: dictionary_splat, not: { has: { kind: call, has: { field: function, regex: "(^|\\\\.)(${names(factories)})$" } } } } }] } }
`),
  );
  return rules;
}
