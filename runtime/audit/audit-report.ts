// The audit's result as an operator reads it: JSON (the shape issue #22 fixed), CSV (one row per duplicate, for a
// spreadsheet) or text that ends with what is to be refunded per currency.
import { minorUnitsPerMajor } from "../core/currency.js";
import type { AuditResult } from "./audit-account.js";
import type { DuplicateGroup } from "./detect.js";
import { csvCell } from "../core/text/csv-cell.js";

export type AuditFormat = "text" | "json" | "csv";

export interface AuditSummary {
  examined: number;
  groups: number;
  certain: number;
  likely: number;
  duplicates: number;
  customers: number;
  resolved: number;
  /** Duplicate groups held back by an open or won dispute (never refunded automatically). */
  disputed: number;
  /** Minor units still to refund per currency (every group, certain and likely), after this run's refunds. */
  to_refund: Record<string, number>;
  /** Minor units this run refunded per currency (`--refund --yes`). */
  refunded: Record<string, number>;
  /** Duplicates still to refund after this run (likely ones not named, failed refunds): 0 means all done. */
  duplicates_left: number;
  requests: number;
  retries: number;
}

export function summarize(result: AuditResult): AuditSummary {
  const done = refundedNow(result);
  const toRefund: Record<string, number> = {};
  const refunded: Record<string, number> = {};
  for (const group of result.groups) {
    toRefund[group.currency] = (toRefund[group.currency] ?? 0) + refundable(group, done);
    const made = refundable(group) - refundable(group, done);
    if (made > 0) refunded[group.currency] = (refunded[group.currency] ?? 0) + made;
  }
  return {
    examined: result.examined,
    groups: result.groups.length,
    certain: result.groups.filter((group) => group.confidence === "certain").length,
    likely: result.groups.filter((group) => group.confidence === "likely").length,
    duplicates: result.groups.reduce((sum, group) => sum + group.duplicates.length, 0),
    customers: new Set(result.groups.map((group) => group.customer)).size,
    resolved: result.resolved.length,
    disputed: result.disputed.length,
    to_refund: toRefund,
    refunded,
    duplicates_left: result.groups.reduce((sum, group) => sum + group.duplicates.filter((duplicate) => !done.has(duplicate.id)).length, 0),
    requests: result.requests.requests,
    retries: result.requests.retries,
  };
}

export function formatAudit(result: AuditResult, format: AuditFormat): string {
  if (format === "json") return JSON.stringify(toJson(result), null, 2);
  if (format === "csv") return toCsv(result);
  return toText(result);
}

/** Minor units as the currency writes them: 4725 usd -> "47.25 USD", 500 jpy -> "500 JPY". */
export function formatAmount(minor: number, currency: string): string {
  const per = minorUnitsPerMajor(currency);
  const decimals = Math.round(Math.log10(per));
  return `${(minor / per).toFixed(decimals)} ${currency.toUpperCase()}`;
}

/** What the group's duplicates hold, but for those refunded by this run (`done`): each refund takes what remained. */
function refundable(group: DuplicateGroup, done: ReadonlySet<string> = new Set()): number {
  return group.duplicates.reduce((sum, duplicate) => sum + (done.has(duplicate.id) ? 0 : duplicate.remaining), 0);
}

/** The duplicates this run refunded (a failed refund is not among them). */
function refundedNow(result: AuditResult): Set<string> {
  return new Set((result.refunds?.outcomes ?? []).filter((outcome) => outcome.refund !== undefined).map((outcome) => outcome.duplicate));
}

/** A group as JSON: its payments by id (the Stripe objects stay in Stripe). */
function groupJson(group: DuplicateGroup) {
  return {
    confidence: group.confidence,
    customer: group.customer,
    currency: group.currency,
    amount: group.amount,
    keep: group.keep,
    duplicates: group.duplicates.map((duplicate) => duplicate.id),
    ...(group.key === undefined ? {} : { key: group.key }),
  };
}

function toJson(result: AuditResult) {
  return {
    groups: result.groups.map((group) => ({ ...groupJson(group), to_refund: refundable(group) })),
    resolved: result.resolved,
    disputed: result.disputed.map((group) => ({
      ...groupJson(group),
      disputes: group.disputes.map(({ payment, dispute }) => ({ payment, ...dispute })),
      advice: group.advice,
    })),
    summary: summarize(result),
    ...(result.refunds ? { refunds: result.refunds.outcomes ?? result.refunds.planned.map((plan) => ({ ...plan, planned: true })) } : {}),
  };
}

// A disputed group's rows refund nothing (to_refund 0) and name the disputes (`id status` on `payment`, `;` apart).
const csvHeader = "confidence,customer,currency,amount,keep,duplicate,to_refund,key,disputes";

function toCsv(result: AuditResult): string {
  const rows = [csvHeader];
  const row = (group: DuplicateGroup, duplicate: string, toRefund: number, disputes: string) =>
    rows.push([group.confidence, group.customer, group.currency, group.amount, group.keep, duplicate, toRefund, group.key ?? "", disputes].map(csvCell).join(","));
  for (const group of result.groups) for (const duplicate of group.duplicates) row(group, duplicate.id, duplicate.remaining, "");
  for (const group of result.disputed) {
    const disputes = group.disputes.map(({ payment, dispute }) => `${dispute.id} ${dispute.status} on ${payment}`).join("; ");
    for (const duplicate of group.duplicates) row(group, duplicate.id, 0, disputes);
  }
  return rows.join("\n");
}


function toText(result: AuditResult): string {
  const lines: string[] = [];
  for (const group of result.groups) {
    const key = group.key === undefined ? "" : ` key ${JSON.stringify(group.key)}`;
    lines.push(
      `${group.confidence.padEnd(7)} ${group.customer} ${formatAmount(group.amount, group.currency)}${key}: keep ${group.keep}, duplicate ${group.duplicates.map((d) => d.id).join(", ")}`,
    );
  }
  for (const resolved of result.resolved) {
    const how = resolved.dispute === undefined ? "already refunded" : `returned by lost dispute ${resolved.dispute}`;
    lines.push(`resolved ${resolved.customer} ${formatAmount(resolved.amount, resolved.currency)}: ${resolved.refunded} ${how} (kept ${resolved.keep})`);
  }
  if (result.disputed.length > 0) lines.push("disputed (never refunded automatically; for a person):");
  for (const group of result.disputed) {
    lines.push(`  ${group.customer} ${formatAmount(group.amount, group.currency)}: keep ${group.keep}, duplicate ${group.duplicates.map((d) => d.id).join(", ")}: ${group.advice}`);
  }
  const outcomes = result.refunds?.outcomes ?? [];
  for (const outcome of outcomes) {
    lines.push(outcome.refund ? `refunded ${outcome.duplicate} (${formatAmount(outcome.amount, outcome.currency)}): ${outcome.refund}` : `refund of ${outcome.duplicate} failed: ${outcome.error ?? "unknown"}`);
  }
  if (result.refunds?.outcomes) {
    const failed = outcomes.filter((outcome) => !outcome.refund).length;
    lines.push(`${outcomes.length - failed} refund(s) made, ${failed} failed${failed > 0 ? ": run again to finish them" : ""}`);
  }
  if (result.refunds && !result.refunds.outcomes) {
    for (const plan of result.refunds.planned) lines.push(`would refund ${plan.duplicate} (${formatAmount(plan.amount, plan.currency)}, ${plan.confidence}; keeps ${plan.keep})`);
    lines.push(`${result.refunds.planned.length} refund(s) planned: run again with --yes to make them`);
  }
  const summary = summarize(result);
  const returned = result.resolved.filter((resolved) => resolved.dispute !== undefined).length;
  const resolvedText = `${summary.resolved - returned} already refunded${returned > 0 ? `, ${returned} returned by a lost dispute` : ""}`;
  const held = summary.disputed > 0 ? `, ${summary.disputed} held for a dispute` : "";
  lines.push(`${summary.examined} payment(s) examined, ${summary.groups} duplicate group(s) (${summary.certain} certain, ${summary.likely} likely), ${resolvedText}${held}`);
  if (summary.groups === 0) lines.push(summary.disputed === 0 ? "no customer charged twice" : "nothing to refund automatically; the disputed groups above are for a person");
  lines.push(...amountLines(result, summary));
  return lines.join("\n");
}

/** Per currency what is to refund, or after `--refund --yes` what this run refunded and what is left, and why. */
function amountLines(result: AuditResult, summary: AuditSummary): string[] {
  const lines: string[] = [];
  const done = refundedNow(result);
  for (const [currency, minor] of Object.entries(summary.to_refund)) {
    const inCurrency = result.groups.filter((group) => group.currency === currency);
    const customers = new Set(inCurrency.map((group) => group.customer)).size;
    const certain = inCurrency.filter((group) => group.confidence === "certain").reduce((sum, group) => sum + refundable(group, done), 0);
    const split = `certain ${formatAmount(certain, currency)}, likely ${formatAmount(minor - certain, currency)}`;
    const refunded = summary.refunded[currency];
    if (refunded === undefined) {
      lines.push(`${customers} customer${customers === 1 ? "" : "s"} charged twice, ${formatAmount(minor, currency)} to refund (${split})`);
      continue;
    }
    const left = minor === 0 ? "nothing left to refund" : `${formatAmount(minor, currency)} left to refund (${split})`;
    lines.push(`${formatAmount(refunded, currency)} refunded by this run, ${left}`);
  }
  if (result.refunds?.outcomes && summary.duplicates_left > 0) {
    lines.push(`${summary.duplicates_left} duplicate(s) left: a likely one is refunded only when named (--refund-ids), a failed refund on the next run`);
  }
  return lines;
}
