// `--report FILE.html`: the same results as a self-contained page (no scripts, no external assets) with an inline
// SVG bar chart of succeeded charges per contender, the duplicate part of each bar highlighted.
import { formatCents } from "./metrics.js";
import type { ProvingGroundResult } from "./run-types.js";
import { describeScale } from "./run-scale.js";
import { renderScenarioHtml } from "./scenario-report.js";

const barHeight = 26;
const labelWidth = 230;
const chartWidth = 520;

export function renderHtmlReport(result: ProvingGroundResult): string {
  const rows = result.contenders.map((contender) => {
    const m = contender.metrics;
    return {
      contender,
      unique: m.charges - m.duplicateCharges,
      duplicates: m.duplicateCharges,
      pass: contender.verdict.startsWith("PASS"),
    };
  });
  const largest = Math.max(1, ...rows.map((row) => row.unique + row.duplicates));
  const scale = chartWidth / largest;
  const height = rows.length * (barHeight + 10) + 30;
  const bars = rows
    .map((row, i) => {
      const y = i * (barHeight + 10) + 10;
      const uniqueWidth = row.unique * scale;
      const duplicateWidth = row.duplicates * scale;
      const label = `${row.unique.toLocaleString("en-US")} charges${row.duplicates > 0 ? ` + ${row.duplicates.toLocaleString("en-US")} duplicates` : ""}`;
      return [
        `<text x="${labelWidth - 8}" y="${y + barHeight * 0.68}" text-anchor="end" class="name">${escape(row.contender.name)}</text>`,
        `<rect x="${labelWidth}" y="${y}" width="${uniqueWidth.toFixed(1)}" height="${barHeight}" class="${row.pass ? "ok" : "charged"}"><title>${escape(label)}</title></rect>`,
        duplicateWidth > 0
          ? `<rect x="${(labelWidth + uniqueWidth).toFixed(1)}" y="${y}" width="${Math.max(2, duplicateWidth).toFixed(1)}" height="${barHeight}" class="dup"><title>${escape(label)}</title></rect>`
          : "",
        `<text x="${(labelWidth + uniqueWidth + Math.max(duplicateWidth, 0) + 6).toFixed(1)}" y="${y + barHeight * 0.68}" class="value">${escape(label)}</text>`,
      ].join("");
    })
    .join("\n");
  const svgWidth = labelWidth + chartWidth + 260;
  const table = result.contenders
    .map((contender) => {
      const m = contender.metrics;
      const reasons = Object.entries(m.deadLettered).map(([reason, n]) => `${escape(reason)}: ${n}`).join("<br>") || "0";
      const bad = (n: number) => (n > 0 ? ` class="bad"` : "");
      const scaledIn = contender.scaleIns ? `${contender.scaleIns.drained} drained, ${contender.scaleIns.killed} SIGKILLed` : "-";
      return `<tr><td>${escape(contender.name)}</td><td>${contender.kind}</td><td>${m.events}</td><td>${m.deliveries}</td><td>${m.paymentIntents}</td>
<td${bad(m.duplicateCharges)}>${m.duplicateCharges}</td><td${bad(m.lostBillings)}>${m.lostBillings}</td><td${bad(m.overCapCents)}>${formatCents(m.overCapCents)}</td>
<td${bad(m.repeatedDeclines)}>${m.repeatedDeclines}</td><td>${reasons}</td><td>${prevented(contender.telemetry?.duplicatesPrevented)}</td><td>${scaledIn}</td>
<td>${(m.wallMs / 1000).toFixed(1)} s</td><td>${escape(contender.verdict)}</td></tr>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>chargeguard proving ground, seed ${result.seed}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1b1f24}
table{border-collapse:collapse;margin-top:1.5rem}td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:right;vertical-align:top}
td:first-child,td:nth-child(2),td:last-child,th{text-align:left}.bad{background:#ffebe9;color:#a40e26;font-weight:600}
svg .name,svg .value{font:13px system-ui,sans-serif;fill:#1b1f24}svg .ok{fill:#2da44e}svg .charged{fill:#8c959f}svg .dup{fill:#cf222e}
</style></head><body>
<h1>chargeguard proving ground</h1>
<p>${escape(describeScale(result))}; seed ${result.seed}, faults: ${escape(result.faults.join(", ") || "none")}.</p>
<h2>Succeeded charges per contender</h2>
<p>Green: a contender that passed; grey: charges of one that failed; <span style="color:#cf222e">red: duplicate charges</span>.</p>
<svg xmlns="http://www.w3.org/2000/svg" width="${svgWidth}" height="${height}" role="img" aria-label="Succeeded charges per contender, duplicates in red">
${bars}
</svg>
<table><thead><tr><th>contender</th><th>kind</th><th>events</th><th>deliveries</th><th>PaymentIntents</th><th>duplicate charges</th><th>lost billings</th><th>over-cap spend</th><th>repeated declines</th><th>dead-lettered</th><th>duplicates prevented (its telemetry, by source)</th><th>scaled-in replicas</th><th>wall time</th><th>verdict</th></tr></thead>
<tbody>
${table}
</tbody></table>
${renderScenarioHtml(result.scenarios ?? [], escape)}
</body></html>
`;
}

/** Duplicate charges the contender's guard stopped, by why the duplicate delivery existed; "-" when it reports none. */
function prevented(bySource: Record<string, number> | undefined): string {
  const entries = Object.entries(bySource ?? {}).sort(([, a], [, b]) => b - a);
  if (entries.length === 0) return "-";
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  return [`<strong>${total}</strong>`, ...entries.map(([source, n]) => `${escape(source)}: ${n}`)].join("<br>");
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}
