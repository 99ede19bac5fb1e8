// The degraded scenarios in the three output forms: a block per scenario in the table, `scenarios` in the JSON, a
// table of rows in the HTML page. Each row is one contender in one scenario: its verdict and the scenario's figures.
import { escapeHtml as escape } from "../report/html-escape.js";
import { htmlTable, type HtmlColumn } from "../report/html-table.js";
import { formatCount, verdictOutcome } from "../measure/metrics.js";
import { describeScenarioFigures } from "./scenario-figures.js";
import type { ScenarioJson, ScenarioOutcome } from "../run/run-types.js";
import { scenarioCatalogue, scenarioSpecs, virtualTimeFactor } from "./scenarios.js";

export function scenariosToJson(outcomes: readonly ScenarioOutcome[]): ScenarioJson[] {
  return outcomes.map((outcome) => ({
    scenario: outcome.scenario,
    description: scenarioCatalogue[outcome.scenario],
    ...(outcome.skipped ? { skipped: outcome.skipped } : {}),
    contenders: outcome.contenders.map((contender) => ({
      name: contender.name,
      kind: contender.kind,
      verdict: contender.verdict,
      outcome: verdictOutcome(contender.verdict),
      ...(contender.kind === "example" ? { expected: scenarioSpecs[outcome.scenario].naiveExpected } : {}),
      events: contender.metrics.events,
      eventsCharged: contender.metrics.eventsCharged,
      duplicateCharges: contender.metrics.duplicateCharges,
      lostBillings: contender.metrics.lostBillings,
      unsettledBillings: contender.metrics.unsettledBillings,
      validDeadLettered: contender.metrics.validDeadLettered,
      deadLettered: contender.metrics.deadLettered,
      ...(contender.scenario ? { figures: contender.scenario } : {}),
      wallMs: contender.metrics.wallMs,
    })),
  }));
}

const naiveExpectation = {
  deadLettered: "its pattern dead-letters valid events here",
  lostBillings: "its pattern holds deliveries on a hung connection here (no timeouts): billings lost",
  heldUntilCut: "its pattern holds deliveries on the hung connections (no timeouts) until the takeover cuts them, then retries: billed late, the verdict counts nothing",
  survives: "the window is shorter than its retry schedule: it spends attempts and requests, the verdict counts nothing",
} as const;

export function renderScenarioTables(outcomes: readonly ScenarioOutcome[]): string {
  if (outcomes.length === 0) return "";
  const lines = [
    `Degraded scenarios (virtual time: 1 wall second stands for ${virtualTimeFactor}; rate limits are real time)`,
    "",
  ];
  for (const outcome of outcomes) {
    const title = `${outcome.scenario}: ${scenarioCatalogue[outcome.scenario]}`;
    lines.push(title, "=".repeat(Math.min(title.length, 118)));
    if (outcome.skipped) {
      lines.push(`  not run: ${outcome.skipped}`, "");
      continue;
    }
    for (const contender of outcome.contenders) {
      const m = contender.metrics;
      const dead = Object.entries(m.deadLettered).map(([reason, n]) => `${reason} ${n}`).join(", ") || "0";
      const rows: [string, string][] = [
        ["events", `${m.events} (${m.eventsCharged} charged, ${m.eventsDeclined} declined)`],
        ["duplicates / lost", `${m.duplicateCharges} / ${m.lostBillings}${m.unsettledBillings > 0 ? ` (${m.unsettledBillings} unsettled: still in flight)` : ""}`],
        ["dead-lettered", `${dead} (${m.validDeadLettered} valid)`],
        ...(contender.scenario ? describeScenarioFigures(contender.scenario) : []),
        ["wall time", `${(m.wallMs / 1000).toFixed(1)} s`],
      ];
      const width = Math.max(...rows.map(([label]) => label.length));
      const expected = contender.kind === "example" ? ` (${naiveExpectation[scenarioSpecs[outcome.scenario].naiveExpected]})` : "";
      lines.push(`  ${contender.name}${expected}`);
      for (const [label, value] of rows) lines.push(`    ${label.padEnd(width)}  ${value}`);
      if (contender.error) lines.push(`    harness: ${contender.error}`);
      lines.push(`    ${contender.verdict}`);
    }
    lines.push("");
  }
  return lines.join("\n");
}

const scenarioColumns: HtmlColumn[] = [
  ["scenario", 12],
  ["contender", 13],
  ["events charged", 7],
  ["duplicates", 7],
  ["lost", 5],
  ["valid dead-lettered", 7],
  ["figures", 27],
  ["verdict", 22],
];

export function renderScenarioHtml(outcomes: readonly ScenarioOutcome[]): string {
  if (outcomes.length === 0) return "";
  const rows = outcomes.flatMap((outcome) => {
    if (outcome.skipped) return [`<tr><td>${outcome.scenario}</td><td colspan="7">not run: ${escape(outcome.skipped)}</td></tr>`];
    return outcome.contenders.map((contender) => {
      const m = contender.metrics;
      const cell = (n: number, bad = false) => `<td class="n${bad && n > 0 ? " bad" : ""}">${formatCount(n)}</td>`;
      const figures = (contender.scenario ? describeScenarioFigures(contender.scenario) : []).map(([label, value]) => `${escape(label)}: ${escape(value)}`).join("<br>");
      return `<tr><td>${outcome.scenario}</td><td>${escape(contender.name)}</td>${cell(m.eventsCharged)}${cell(m.duplicateCharges, true)}
${cell(m.lostBillings, true)}${cell(m.validDeadLettered, true)}<td>${figures}</td><td>${escape(contender.verdict)}</td></tr>`;
    });
  });
  return `<h2>Degraded scenarios</h2>
<p>Virtual time: one wall second stands for ${virtualTimeFactor} (the lock's scale); rate limits are real time.</p>
${htmlTable(scenarioColumns, rows)}`;
}

/** Every scenario that ran: the generated consumer passed it. */
export function scenariosPassed(outcomes: readonly ScenarioOutcome[]): boolean {
  return outcomes.every((outcome) => outcome.contenders.every((contender) => contender.kind !== "generated" || contender.verdict.startsWith("PASS")));
}
