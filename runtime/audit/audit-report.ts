// The audit's result as an operator reads it: JSON (the shape issue #22 fixed), CSV (one row per duplicate, for a
// spreadsheet) or text that ends with what is to be refunded per currency.
import { minorUnitsPerMajor } from "../currency.js";
import type { AuditResult } from "./audit-account.js";
import type { DuplicateGroup } from "./detect.js";
import { csvCell } from "../text/csv-cell.js";

export type AuditFormat = "text" | "json" | "csv";

export interface AuditSummary {
  examined: number;
  groups: number;
  certain: number;
  likely: number;
  duplicates: number;
  customers: number;
  resolved: number;
  /** Minor units still to refund per currency (every group, certain and likely). */
  to_refund: Record<string, number>;
  requests: number;
  retries: number;
}

export function summarize(result: AuditResult): AuditSummary {
  const toRefund: Record<string, number> = {};
  for (const group of result.groups) toRefund[group.currency] = (toRefund[group.currency] ?? 0) + refundable(group);
  return {
    examined: result.examined,
    groups: result.groups.length,
    certain: result.groups.filter((group) => group.confidence === "certain").length,
    likely: result.groups.filter((group) => group.confidence === "likely").length,
    duplicates: result.groups.reduce((sum, group) => sum + group.duplicates.length, 0),
    customers: new Set(result.groups.map((group) => group.customer)).size,
    resolved: result.resolved.length,
    to_refund: toRefund,
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

function refundable(group: DuplicateGroup): number {
  return group.duplicates.reduce((sum, duplicate) => sum + duplicate.remaining, 0);
}

function toJson(result: AuditResult) {
  return {
    groups: result.groups.map((group) => ({
      confidence: group.confidence,
      customer: group.customer,
      currency: group.currency,
      amount: group.amount,
      keep: group.keep,
      duplicates: group.duplicates.map((duplicate) => duplicate.id),
      ...(group.key === undefined ? {} : { key: group.key }),
      to_refund: refundable(group),
    })),
    resolved: result.resolved,
    summary: summarize(result),
    ...(result.refunds ? { refunds: result.refunds.outcomes ?? result.refunds.planned.map((plan) => ({ ...plan, planned: true })) } : {}),
  };
}

const csvHeader = "confidence,customer,currency,amount,keep,duplicate,to_refund,key";

function toCsv(result: AuditResult): string {
  const rows = [csvHeader];
  for (const group of result.groups) {
    for (const duplicate of group.duplicates) {
      rows.push([group.confidence, group.customer, group.currency, group.amount, group.keep, duplicate.id, duplicate.remaining, group.key ?? ""].map(csvCell).join(","));
    }
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
  for (const resolved of result.resolved) lines.push(`resolved ${resolved.customer} ${formatAmount(resolved.amount, resolved.currency)}: ${resolved.refunded} already refunded (kept ${resolved.keep})`);
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
  lines.push(`${summary.examined} payment(s) examined, ${summary.groups} duplicate group(s) (${summary.certain} certain, ${summary.likely} likely), ${summary.resolved} already refunded`);
  if (summary.groups === 0) lines.push("no customer charged twice");
  for (const [currency, minor] of Object.entries(summary.to_refund)) {
    const inCurrency = result.groups.filter((group) => group.currency === currency);
    const customers = new Set(inCurrency.map((group) => group.customer)).size;
    const certain = inCurrency.filter((group) => group.confidence === "certain").reduce((sum, group) => sum + refundable(group), 0);
    const split = `certain ${formatAmount(certain, currency)}, likely ${formatAmount(minor - certain, currency)}`;
    lines.push(`${customers} customer${customers === 1 ? "" : "s"} charged twice, ${formatAmount(minor, currency)} to refund (${split})`);
  }
  return lines.join("\n");
}
