// The HTML report (written by default beside the terminal tables, `--report FILE.html` to name it): the same results
// as a self-contained page (no scripts, no external assets). The verdict as its headline, charts of what the verdict
// counts (duplicates, lost billings, over-cap spend) and of time, one row per contender, then the details. Laid out
// for a laptop screen: the table has a fixed layout within the page's width (no sideways scroll from 1280 px up).
import { renderBarChart, type Chart } from "./html-charts.js";
import { escapeHtml as escape } from "./html-escape.js";
import { htmlTable, type HtmlColumn } from "./html-table.js";
import { formatCents, formatCount as count, verdictOutcome } from "../measure/metrics.js";
import { countsVaryNote, describeVerdict, runOutcome } from "./results.js";
import type { ContenderResult, ProvingGroundResult } from "../run/run-types.js";
import { describeScale } from "../run/run-scale.js";
import { renderScenarioHtml } from "../scenarios/scenario-report.js";

/** The page's styles. The tables keep to the page's width: a fixed layout over set column widths, long words wrapped. */
const reportCss = `
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;padding:1.5rem 2rem;max-width:1600px;color:#1b1f24}
h1.verdict{font-size:1.6rem;margin:.3rem 0;padding:.6rem .9rem;border-radius:6px}
h1.pass{background:#dafbe1;color:#116329}h1.fail{background:#ffebe9;color:#a40e26}h1.unsettled{background:#fff8c5;color:#7d4e00}
.kicker{color:#57606a;margin:0}.note{color:#57606a;max-width:75rem}
h2{font-size:1.1rem;margin:1.6rem 0 .4rem}
.charts{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:1rem 2rem}
@media (max-width:900px){.charts{grid-template-columns:minmax(0,1fr)}}
figure.chart{margin:0}figure.chart h2{margin-top:.8rem}figure.chart p{margin:.2rem 0 .4rem;color:#57606a}
figure.chart svg{display:block;width:100%;height:auto}
svg .name,svg .value{font:12px system-ui,sans-serif;fill:#1b1f24}
svg .ok{fill:#2da44e}svg .muted{fill:#8c959f}svg .dup,svg .bad{fill:#cf222e}svg .neutral{fill:#0969da}
.table-wrap{overflow-x:auto}
table.grid{table-layout:fixed;width:100%;min-width:1000px;border-collapse:collapse;margin-top:.5rem}
table.grid td,table.grid th{border:1px solid #d0d7de;padding:4px 6px;vertical-align:top;overflow-wrap:break-word}
table.grid th{background:#f6f8fa;text-align:left;font-size:13px;font-weight:600}
table.grid td.flow{white-space:nowrap}
table.grid td.n{text-align:right;font-variant-numeric:tabular-nums}
.bad{background:#ffebe9;color:#a40e26;font-weight:600}
.chip{display:inline-block;padding:0 .4rem;border-radius:1em;font-size:12px;font-weight:600;white-space:nowrap}
.chip.pass{background:#dafbe1;color:#116329}.chip.fail{background:#ffebe9;color:#a40e26}.chip.expected{background:#eaeef2;color:#424a53}
.chip.unsettled{background:#fff8c5;color:#7d4e00}
`;

export function renderHtmlReport(result: ProvingGroundResult): string {
  const outcome = runOutcome(result);
  const headline = { passed: "PASSED", failed: "FAILED", "did-not-settle": "DID NOT SETTLE" }[outcome];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>chargeguard proving ground, seed ${result.seed}: ${headline}</title>
<style>${reportCss}</style></head><body>
<header>
<p class="kicker">chargeguard proving ground · seed ${result.seed} · faults: ${escape(result.faults.join(", ") || "none")}</p>
<h1 class="verdict ${outcome === "passed" ? "pass" : outcome === "failed" ? "fail" : "unsettled"}">${escape(describeVerdict(result))}</h1>
<p>${escape(describeScale(result))}. Broken examples are expected to fail; the run passes when the generated consumers pass.</p>
<p class="note">${escape(countsVaryNote)}</p>
</header>
${result.contenders.length > 0 ? contenderSections(result.contenders) : ""}
${renderScenarioHtml(result.scenarios ?? [])}
</body></html>
`;
}

function contenderSections(contenders: readonly ContenderResult[]): string {
  return `<div class="charts">
${reportCharts(contenders).map(renderBarChart).join("\n")}
</div>
<h2>One row per contender</h2>
${summaryTable(contenders)}
<h2>Details</h2>
${detailsTable(contenders)}`;
}

/** What the verdict counts (duplicates, lost billings, over-cap spend), then time. */
function reportCharts(contenders: readonly ContenderResult[]): Chart[] {
  const tone = (contender: ContenderResult, n: number) => (n > 0 ? "bad" : passes(contender) ? "ok" : "muted");
  return [
    {
      title: "Succeeded charges, duplicates in red",
      caption: `Green: a contender that passed; grey: one that failed; <span style="color:#cf222e">red: duplicate charges</span>.`,
      bars: contenders.map((c) => {
        const { charges, duplicateCharges } = c.metrics;
        const text = `${count(charges - duplicateCharges)} charges${duplicateCharges > 0 ? ` + ${count(duplicateCharges)} duplicates` : ""}`;
        return { name: c.name, value: charges, highlight: duplicateCharges, tone: passes(c) ? "ok" : "muted", text };
      }),
    },
    {
      title: "Lost billings",
      caption: "Valid events neither charged, nor declined, nor dead-lettered: money never billed.",
      bars: contenders.map((c) => ({ name: c.name, value: c.metrics.lostBillings, tone: tone(c, c.metrics.lostBillings), text: count(c.metrics.lostBillings) })),
    },
    {
      title: "Over-cap spend",
      caption: "Succeeded spend above each billing period's cap, summed over periods.",
      bars: contenders.map((c) => ({ name: c.name, value: c.metrics.overCapCents, tone: tone(c, c.metrics.overCapCents), text: formatCents(c.metrics.overCapCents) })),
    },
    {
      title: "Wall time",
      caption: "From the first event queued to the queue drained, per contender (contenders run side by side).",
      bars: contenders.map((c) => ({ name: c.name, value: c.metrics.wallMs, tone: "neutral", text: seconds(c.metrics.wallMs) })),
    },
  ];
}

/** Column titles and widths (%); the widths add up to 100, the table's fixed layout holds them. */
const summaryColumns: HtmlColumn[] = [
  ["contender", 16],
  ["flow", 10],
  ["events", 6],
  ["Stripe objects", 6],
  ["duplicate charges", 8],
  ["lost billings", 6],
  ["over-cap spend", 9],
  ["repeated declines", 8],
  ["dead-lettered", 6],
  ["audit agrees", 8],
  ["wall time", 6],
  ["verdict", 11],
];

function summaryTable(contenders: readonly ContenderResult[]): string {
  const rows = contenders.map((c) => {
    const m = c.metrics;
    const bad = (n: number) => (n > 0 ? " bad" : "");
    const dead = Object.values(m.deadLettered).reduce((sum, n) => sum + n, 0);
    return `<tr><td>${c.kind === "generated" ? `<strong>${escape(c.name)}</strong>` : escape(c.name)}</td><td class="flow">${c.flow}</td><td class="n">${count(m.events)}</td><td class="n">${count(m.paymentIntents)}</td>
<td class="n${bad(m.duplicateCharges)}">${count(m.duplicateCharges)}</td><td class="n${bad(m.lostBillings)}">${count(m.lostBillings)}</td><td class="n${bad(m.overCapCents)}">${formatCents(m.overCapCents)}</td>
<td class="n${bad(m.repeatedDeclines)}">${count(m.repeatedDeclines)}</td><td class="n">${count(dead)}</td>${auditCell(c)}<td class="n">${seconds(m.wallMs)}</td><td>${verdictChip(c)}</td></tr>`;
  });
  return htmlTable(summaryColumns, rows);
}

const detailColumns: HtmlColumn[] = [
  ["contender", 17],
  ["deliveries", 8],
  ["dead-lettered, by reason", 19],
  ["duplicates prevented (its telemetry, by source)", 16],
  ["scaled-in replicas", 10],
  ["verdict", 30],
];

function detailsTable(contenders: readonly ContenderResult[]): string {
  const rows = contenders.map((c) => {
    const m = c.metrics;
    const reasons = Object.entries(m.deadLettered).map(([reason, n]) => `${escape(reason)}: ${count(n)}`).join("<br>") || "0";
    const scaledIn = c.scaleIns ? `${count(c.scaleIns.drained)} drained, ${count(c.scaleIns.killed)} SIGKILLed` : "-";
    const error = c.error ? `<br>harness error: ${escape(c.error)}` : "";
    return `<tr><td>${escape(c.name)}</td><td class="n">${count(m.deliveries)}</td><td>${reasons}</td><td>${prevented(c.telemetry?.duplicatesPrevented)}</td><td>${scaledIn}</td><td>${escape(c.verdict)}${error}</td></tr>`;
  });
  return htmlTable(detailColumns, rows);
}

/** `chargeguard audit` of the contender's account beside the ground truth; meter events cannot be listed back. */
function auditCell(contender: ContenderResult): string {
  const audit = contender.accountAudit;
  if (!audit) return `<td title="meter events cannot be listed back from Stripe">-</td>`;
  if (audit.agrees) return `<td>yes (${count(audit.duplicates)})</td>`;
  return `<td class="bad">NO: found ${count(audit.duplicates)}, truth ${count(audit.groundTruth)}</td>`;
}

function verdictChip(contender: ContenderResult): string {
  if (passes(contender)) return `<span class="chip pass">PASS</span>`;
  if (verdictOutcome(contender.verdict) === "did-not-settle") return `<span class="chip unsettled" title="billings still in flight when the wait ended">DID NOT SETTLE</span>`;
  return contender.kind === "example" ? `<span class="chip expected" title="a broken example: expected to fail">FAIL (expected)</span>` : `<span class="chip fail">FAIL</span>`;
}

/** Duplicate charges the contender's guard stopped, by why the duplicate delivery existed; "-" when it reports none. */
function prevented(bySource: Record<string, number> | undefined): string {
  const entries = Object.entries(bySource ?? {}).sort(([, a], [, b]) => b - a);
  if (entries.length === 0) return "-";
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  return [`<strong>${count(total)}</strong>`, ...entries.map(([source, n]) => `${escape(source)}: ${count(n)}`)].join("<br>");
}

function passes(contender: ContenderResult): boolean {
  return contender.verdict.startsWith("PASS");
}

function seconds(ms: number): string {
  return `${(ms / 1000).toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 })} s`;
}
