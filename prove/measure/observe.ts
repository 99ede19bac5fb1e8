// Reads what a run left behind into the metrics' terms: the dead-letter queue, and the declines the contender
// recorded (the guard's guard_records, or a seed's own billing_records table, if it keeps one). Card attempts are read per flow (flows.ts).
import type { QueueSnapshot } from "../../sandbox/index.js";
import type { CustomerDirectory } from "../workload/customers.js";
import type { DeadLetter } from "./metrics.js";
import type { ProvingFlow } from "../workload/flows.js";
import type { Workload } from "../workload/workload.js";

/** `workloadBody`: a flow's body back to the workload's own (the metrics recognise re-sent copies by it). */
export function deadLetters(snapshot: QueueSnapshot, directory: CustomerDirectory, workloadBody?: (body: unknown) => unknown): DeadLetter[] {
  return snapshot.deadLettered.map((message) => ({
    messageId: message.messageId,
    body: workloadBody?.(message.body) ?? directory.bodyToWorkload(message.body),
    reason: message.deadLetterReason ?? "",
  }));
}

/** What the judgement reads a contender's records through: the shared PGlite, or a pool on a scenario's PostgreSQL. */
export interface SqlReader {
  query<Row>(sql: string): Promise<{ rows: Row[] }>;
}

export interface RecordedEvents {
  /** Event ids with a record row (any state); undefined when the contender keeps no such table. */
  recorded: Set<string> | undefined;
  /** Event ids whose row says declined (the guard's `state`, or a seed table's `status`). */
  declined: Set<string>;
  /** Each recorded event's row as the evidence of an unresolved event shows it (unresolved.ts). */
  rows: Map<string, RecordSummary>;
}

/** A record row in brief: its state, and for the guard's rows the attempts, recovery points and lease. */
export interface RecordSummary {
  state: string;
  attempts?: number;
  steps?: string[];
  lockedUntil?: string;
}

function summaryOf(row: Record<string, unknown>): RecordSummary {
  const summary: RecordSummary = { state: String(row.state ?? row.status) };
  if (typeof row.attempts === "number") summary.attempts = row.attempts;
  if (row.steps && typeof row.steps === "object") summary.steps = Object.keys(row.steps);
  if (row.locked_until instanceof Date) summary.lockedUntil = row.locked_until.toISOString();
  return summary;
}

/** The guard's records still pending (a billing claimed and not finished): 0 for a contender that keeps none. */
export async function pendingRecordCount(database: SqlReader): Promise<number> {
  try {
    const { rows } = await database.query<{ pending: string | number }>("SELECT count(*) AS pending FROM guard_records WHERE state = 'pending'");
    return Number(rows[0]?.pending ?? 0);
  } catch (error) {
    if ((error as { code?: string }).code === "42P01") return 0;
    throw error;
  }
}

/** The rows of `table`, or undefined when the contender keeps no such table. */
async function rowsOf(database: SqlReader, table: string): Promise<Record<string, unknown>[] | undefined> {
  try {
    return (await database.query<Record<string, unknown>>(`SELECT * FROM ${table}`)).rows;
  } catch (error) {
    if ((error as { code?: string }).code === "42P01") return undefined;
    throw error;
  }
}

/**
 * What the contender recorded, by workload event: the guard's guard_records rows by their identity, a usage id (the
 * event's id) or a (customer, period); a seed's own billing_records rows (PaymentIntents) by (customer, period).
 */
export async function recordedEvents(database: SqlReader, workload: Workload, flow: ProvingFlow): Promise<RecordedEvents> {
  const guarded = await rowsOf(database, "guard_records");
  const table = guarded !== undefined ? "guard_records" : "billing_records";
  const rows = guarded ?? (flow === "payment-intent" ? await rowsOf(database, table) : undefined);
  if (rows === undefined) return { recorded: undefined, declined: new Set(), rows: new Map() };
  const byPeriod = new Map(workload.events.filter((event) => event.usage).map((event) => [`${event.usage?.customerId}|${event.billingPeriod}`, event.id]));
  const eventOf = (row: Record<string, unknown>): string | undefined => {
    if (table === "billing_records") return byPeriod.get(`${String(row.customer_id)}|${String(row.billing_period)}`);
    const key = JSON.parse(String(row.record_key)) as { usageId?: string; customerId?: string; billingPeriod?: string };
    return key.usageId ?? byPeriod.get(`${key.customerId}|${key.billingPeriod}`);
  };
  const recorded = new Set<string>();
  const declined = new Set<string>();
  const summaries = new Map<string, RecordSummary>();
  for (const row of rows) {
    const id = eventOf(row);
    if (id === undefined) continue;
    recorded.add(id);
    summaries.set(id, summaryOf(row));
    if (row.state === "declined" || row.status === "declined") declined.add(id);
  }
  return { recorded, declined, rows: summaries };
}
