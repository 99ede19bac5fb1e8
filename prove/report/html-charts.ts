// The HTML report's charts: one horizontal bar per contender, drawn as inline SVG (no scripts, no external assets).
// Each SVG has a viewBox and no fixed width, so the page's grid sizes it: two charts side by side from 1280 px up,
// one above the other on a narrow screen, never wider than the page.
import { escapeHtml } from "./html-escape.js";

export interface ChartBar {
  name: string;
  value: number;
  /** The part of `value` drawn red at the end of the bar (duplicate charges). */
  highlight?: number;
  /** ok: a contender that passed; muted: one that failed; bad: the figure itself is a failure; neutral: a measure. */
  tone: "ok" | "muted" | "bad" | "neutral";
  /** The value as the reader reads it, beside the bar: "9,002 charges + 0 duplicates", "$1,630.96", "42.2 s". */
  text: string;
}

export interface Chart {
  title: string;
  caption: string;
  bars: ChartBar[];
}

/** viewBox units: the names, the longest bar, then room for the value's text. */
const width = { label: 230, bar: 220, total: 660 };
const barHeight = 18;
const gap = 6;

export function renderBarChart(chart: Chart): string {
  const largest = Math.max(1, ...chart.bars.map((bar) => bar.value));
  const scale = width.bar / largest;
  const height = chart.bars.length * (barHeight + gap) + gap;
  const bars = chart.bars.map((bar, i) => {
    const y = i * (barHeight + gap) + gap;
    const text = y + barHeight * 0.72;
    const highlight = Math.min(bar.highlight ?? 0, bar.value);
    const main = (bar.value - highlight) * scale;
    const extra = highlight > 0 ? Math.max(2, highlight * scale) : 0;
    const title = `<title>${escapeHtml(`${bar.name}: ${bar.text}`)}</title>`;
    return [
      `<text x="${width.label - 8}" y="${text.toFixed(1)}" text-anchor="end" class="name">${escapeHtml(bar.name)}</text>`,
      `<rect x="${width.label}" y="${y}" width="${main.toFixed(1)}" height="${barHeight}" class="${bar.tone}">${title}</rect>`,
      extra > 0 ? `<rect x="${(width.label + main).toFixed(1)}" y="${y}" width="${extra.toFixed(1)}" height="${barHeight}" class="dup">${title}</rect>` : "",
      `<text x="${(width.label + main + extra + 6).toFixed(1)}" y="${text.toFixed(1)}" class="value">${escapeHtml(bar.text)}</text>`,
    ].join("");
  });
  return `<figure class="chart">
<figcaption><h2>${escapeHtml(chart.title)}</h2><p>${chart.caption}</p></figcaption>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width.total} ${height}" preserveAspectRatio="xMinYMin meet" role="img" aria-label="${escapeHtml(chart.title)}">
${bars.join("\n")}
</svg>
</figure>`;
}
