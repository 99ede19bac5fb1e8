// Same identity, other parameters: which fields differ between the billing on record and the one now asked for,
// and what to do. A second usage event that shares the identity the team chose (say customer and period) is not a
// retry of the first, and the refusal must say so in terms the team can act on, not only "other parameters".
import { canonicalDocument } from "../core/canonical-json.js";
import type { GuardRecord } from "./guard-record.js";
import type { StoreClaimRequest } from "./guard-store.js";

/** The fields whose values differ (`payload.amount`, `spend.amount`, `flow`, `idempotencyKey`), sorted. */
export function differingFields(record: Pick<GuardRecord, "flow" | "idempotencyKey" | "payload" | "spend">, request: Pick<StoreClaimRequest, "flow" | "idempotencyKey" | "payload" | "spend">): string[] {
  const differs: string[] = [];
  if (record.flow !== request.flow) differs.push("flow");
  if (record.idempotencyKey !== request.idempotencyKey) differs.push("idempotencyKey");
  const recorded = record.payload;
  const asked = request.payload;
  for (const name of new Set([...Object.keys(recorded), ...Object.keys(asked)])) {
    if (canonicalDocument(recorded[name] ?? null) !== canonicalDocument(asked[name] ?? null)) differs.push(`payload.${name}`);
  }
  const spendRecorded = record.spend ?? { period: null, currency: null, amount: null };
  const spendAsked = request.spend ?? { period: null, currency: null, amount: null };
  for (const name of ["period", "currency", "amount"] as const) {
    if (spendRecorded[name] !== spendAsked[name]) differs.push(`spend.${name}`);
  }
  return differs.sort();
}

/**
 * The mismatch refusal: the identity, what differs (short values recorded -> asked; long ones and derived ones such
 * as the key only named, so the dead letter's description keeps the advice), and what to do.
 */
export function mismatchReason(record: Parameters<typeof differingFields>[0], request: Parameters<typeof differingFields>[1] & Pick<StoreClaimRequest, "scope" | "recordKey">): string {
  const shown: string[] = [];
  const named: string[] = [];
  for (const field of differingFields(record, request)) {
    const [before, after] = [valueAt(record, field), valueAt(request, field)];
    if (field !== "idempotencyKey" && before.length <= maxShown && after.length <= maxShown) shown.push(`${field} ${before} -> ${after}`);
    else named.push(field);
  }
  const differs = [...shown, ...(named.length > 0 ? [`${shown.length > 0 ? "also " : ""}${named.join(", ")}`] : [])].join("; ");
  return (
    `${request.scope} ${request.recordKey} is already recorded with other parameters (${differs || "the fingerprint"}); ` +
    "refusing to send a different request under the same identity: if this is another billing, give it its own identity " +
    "(e.g. the usage event's own id); if it corrects the first, refund that and bill anew " +
    `(on record: flow ${record.flow}, key ${record.idempotencyKey})`
  );
}

/** Values longer than this are named, not shown. */
const maxShown = 40;

function valueAt(source: { flow: string; idempotencyKey: string; payload: Readonly<Record<string, unknown>>; spend?: unknown }, field: string): string {
  const [head, name] = field.split(".", 2) as [string, string | undefined];
  if (head === "flow") return source.flow;
  if (head === "idempotencyKey") return source.idempotencyKey;
  const holder = (head === "payload" ? source.payload : (source.spend ?? {})) as Record<string, unknown>;
  const value = name === undefined ? undefined : holder[name];
  return value === undefined ? "(none)" : canonicalDocument(value);
}
