// The proving ground (`chargeguard prove`, `npm start`): the seeds' broken consumers and the generated one, side by
// side under faults, counted at Stripe. The CLI enters here.
export { faultCatalogue, faultNames, parseFaultNames, type FaultName } from "./faults/faults.js";
export { contenders, selectContenders } from "./contender/contenders.js";
export { renderHtmlReport } from "./report/html-report.js";
export { progressBar, progressLines, progressReporter } from "./report/progress-bar.js";
export { provingGroundDefaults, provingGroundFull, provingGroundLimits, runProvingGround } from "./run/proving-ground.js";
export { describeVerdict, runOutcome, runPassed, toJson } from "./report/results.js";
export type { ProvingGroundResult, ScenarioOutcome } from "./run/run-types.js";
export { harnessDeliveryBudgetMs, harnessSettings, type HarnessSettings } from "./run/settings.js";
export { renderTables } from "./report/table.js";
export { renderCompactTable } from "./report/compact-table.js";
export { parseScenarioNames, scenarioCatalogue, scenarioNames, virtualTimeFactor, type ScenarioName } from "./scenarios/scenarios.js";
export { runScenarios, scenarioDefaults } from "./scenarios/scenario-run.js";
export { scenariosPassed } from "./scenarios/scenario-report.js";
