// The verdict a reader sees first: one row per contender (what the README's table shows), the broken examples'
// failures marked as expected, so "PASSED" beside a column of FAILs is not read as a contradiction. The per-contender
// blocks (table.ts) follow only with --details.
import { formatCents, formatCount, verdictOutcome } from "../measure/metrics.js";
import { countsVaryNote, describeFaultHits, runOutcome } from "./results.js";
import type { ContenderResult, ProvingGroundResult } from "../run/run-types.js";
import { renderScenarioTables } from "../scenarios/scenario-report.js";
import { renderTables } from "./table.js";

const columns = ["contender", "flow", "duplicates", "lost", "over-cap", "verdict"] as const;

function row(contender: ContenderResult): string[] {
  const m = contender.metrics;
  const outcome = verdictOutcome(contender.verdict);
  const verdict =
    outcome === "pass" ? "PASS" : outcome === "did-not-settle" ? "DID NOT SETTLE (inconclusive)" : contender.kind === "example" ? "FAIL (expected: a broken example)" : "FAIL";
  return [
    contender.kind === "generated" ? `${contender.name} (generated)` : contender.name,
    contender.flow,
    formatCount(m.duplicateCharges),
    formatCount(m.lostBillings),
    formatCents(m.overCapCents),
    verdict,
  ];
}

/** What the columns count: the table's numbers are read by someone who has not read the harness. */
export const columnLegend =
  "duplicates: succeeded charges beyond one per event; lost: valid events neither charged, declined nor dead-lettered; over-cap: spend past the period's cap.";

/** The step after this run, by its outcome. */
export function nextStep(result: ProvingGroundResult): string {
  const outcome = runOutcome(result);
  if (outcome === "passed") return "Next: chargeguard new consumer <dir> writes the consumer that passed, for your queue; its README runs it on the sandbox.";
  if (outcome === "did-not-settle") return `Next: run again (--seed ${result.seed} gives the same workload); a machine this busy left billings in flight, so the verdict is open.`;
  return `Next: --details shows every figure of the failing contender; --seed ${result.seed} reproduces the verdict.`;
}

/** The compact table, then the degraded scenarios' tables; a run without chaos contenders (`--no-chaos`) is those alone. */
export function renderCompactTable(result: ProvingGroundResult): string {
  if (result.contenders.length === 0) return renderTables(result);
  const scenarios = renderScenarioTables(result.scenarios ?? []);
  const rows = [[...columns], ...result.contenders.map(row)];
  // Planned is not hit: how often each fault met the generated consumer (each contender's: --details).
  const generated = result.contenders.find((contender) => contender.kind === "generated");
  const hits = generated && result.faults.length > 0 ? [`faults that hit ${generated.name}: ${describeFaultHits(result.faults, generated.faultHits)}`] : [];
  const widths = columns.map((_, index) => Math.max(...rows.map((cells) => (cells[index] ?? "").length)));
  // Numbers right-aligned, text left-aligned.
  const numeric = new Set([2, 3, 4]);
  const line = (cells: string[]) =>
    cells.map((cell, index) => (numeric.has(index) ? cell.padStart(widths[index] ?? 0) : cell.padEnd(widths[index] ?? 0))).join("  ").trimEnd();
  return [
    `chargeguard proving ground: seed ${result.seed}, ${formatCount(result.events)} events, faults: ${result.faults.length > 0 ? result.faults.join(", ") : "none"}`,
    "",
    line(rows[0] as string[]),
    line(widths.map((width) => "-".repeat(width))),
    ...rows.slice(1).map(line),
    "",
    ...hits,
    columnLegend,
    "Broken examples are expected to fail; the run passes when the generated consumer passes. --details: every figure per contender.",
    countsVaryNote,
    ...(scenarios === "" ? [] : ["", scenarios]),
    nextStep(result),
  ].join("\n");
}
