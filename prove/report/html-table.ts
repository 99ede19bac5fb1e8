// The HTML report's tables: a fixed layout over set column widths (percentages adding up to 100), so long verdicts
// and names wrap inside their cells instead of squeezing a column to a sliver or pushing the page sideways. The
// report's CSS (html-report.ts) gives `table.grid` its minimum width and the wrapper its scroll on narrow screens.
import { escapeHtml } from "./html-escape.js";

/** A column: its title and its share of the table's width in percent. */
export type HtmlColumn = readonly [title: string, percent: number];

export function htmlTable(columns: readonly HtmlColumn[], rows: readonly string[]): string {
  const cols = columns.map(([, percent]) => `<col style="width:${percent}%">`).join("");
  const heads = columns.map(([title]) => `<th>${escapeHtml(title)}</th>`).join("");
  return `<div class="table-wrap"><table class="grid"><colgroup>${cols}</colgroup><thead><tr>${heads}</tr></thead>
<tbody>
${rows.join("\n")}
</tbody></table></div>`;
}
