import { customerKey } from "./collection.js";
import { invalidRequest } from "./stripe-failures.js";
import type { PaymentIntent } from "./objects.js";

// Stripe's search query language for PaymentIntents: clauses `field:value`, `-field:value` (negation),
// `amount>100`, `created>=1700000000`, `metadata['key']:'value'`, joined all by AND or all by OR.

type Operator = ":" | ">" | "<" | ">=" | "<=";
type Field = "amount" | "created" | "currency" | "customer" | "status" | { metadata: string };

interface Clause {
  negated: boolean;
  field: Field;
  operator: Operator;
  value: string | number;
}

export interface SearchQuery {
  clauses: Clause[];
  join: "AND" | "OR";
}

const clausePattern =
  /^\s*(-?)(amount|created|currency|customer|status|metadata\[(?:'([^']*)'|"([^"]*)")\])\s*(>=|<=|:|>|<)\s*(?:'([^']*)'|"([^"]*)"|(-?\d+))\s*/;
const numericFields = new Set(["amount", "created"]);

export function parseSearchQuery(query: string): SearchQuery {
  const clauses: Clause[] = [];
  const joins = new Set<"AND" | "OR">();
  let rest = query;
  for (;;) {
    const match = clausePattern.exec(rest);
    if (!match) throw badQuery(query, rest);
    const [whole, negated, fieldText, singleKey, doubleKey, operator, singleValue, doubleValue, numberValue] = match;
    const metadataKey = singleKey ?? doubleKey;
    const field: Field = metadataKey !== undefined ? { metadata: metadataKey } : (fieldText as Exclude<Field, object>);
    const numeric = typeof field === "string" && numericFields.has(field);
    const stringValue = singleValue ?? doubleValue;
    if (numeric && numberValue === undefined) throw invalidRequest(`Search field ${fieldText} takes a number, not a quoted string.`, { param: "query" });
    if (!numeric && stringValue === undefined) throw invalidRequest(`Search field ${fieldText} takes a quoted string value, e.g. ${fieldText}:'value'.`, { param: "query" });
    if (!numeric && operator !== ":") throw invalidRequest(`Search field ${fieldText} supports only the ':' operator.`, { param: "query" });
    clauses.push({ negated: negated === "-", field, operator: operator as Operator, value: numeric ? Number(numberValue) : (stringValue as string) });
    rest = rest.slice(whole.length);
    if (rest.trim() === "") break;
    const join = /^(AND|OR)\s+/.exec(rest);
    if (!join) throw badQuery(query, rest);
    joins.add(join[1] as "AND" | "OR");
    rest = rest.slice(join[0].length);
  }
  if (joins.size > 1) throw invalidRequest("A search query cannot combine AND and OR.", { param: "query" });
  if (clauses.length > 10) throw invalidRequest("A search query can have at most 10 clauses.", { param: "query" });
  return { clauses, join: joins.has("OR") ? "OR" : "AND" };
}

export function matches(query: SearchQuery, intent: PaymentIntent): boolean {
  return query.join === "AND" ? query.clauses.every((c) => clauseMatches(c, intent)) : query.clauses.some((c) => clauseMatches(c, intent));
}

/** An index key (see `paymentIntentIndexKeys`) that every match must carry, so a search reads only that bucket. */
export function narrowingIndexKey(query: SearchQuery): string | undefined {
  if (query.join !== "AND" && query.clauses.length > 1) return undefined;
  for (const clause of query.clauses) {
    if (clause.negated || clause.operator !== ":") continue;
    if (typeof clause.field === "object") return metadataKey(clause.field.metadata, String(clause.value));
    if (clause.field === "customer") return customerKey(String(clause.value));
  }
  return undefined;
}

export function metadataKey(key: string, value: string): string {
  return `metadata\u0000${key}\u0000${value}`;
}

export function paymentIntentIndexKeys(intent: PaymentIntent): string[] {
  return Object.entries(intent.metadata).map(([key, value]) => metadataKey(key, value));
}

function clauseMatches(clause: Clause, intent: PaymentIntent): boolean {
  const actual = typeof clause.field === "object" ? intent.metadata[clause.field.metadata] : intent[clause.field];
  let result: boolean;
  if (typeof clause.value === "number") {
    const number = actual as number;
    switch (clause.operator) {
      case ":":
        result = number === clause.value;
        break;
      case ">":
        result = number > clause.value;
        break;
      case "<":
        result = number < clause.value;
        break;
      case ">=":
        result = number >= clause.value;
        break;
      case "<=":
        result = number <= clause.value;
        break;
    }
  } else {
    result = actual === clause.value;
  }
  return clause.negated ? !result : result;
}

function badQuery(query: string, at: string) {
  return invalidRequest(
    `Invalid search query: "${query}" near "${at.trim()}". Use clauses like metadata['billing_period']:'2026-10' AND customer:'cus_...'.`,
    { code: "parameter_invalid_string", param: "query" },
  );
}
