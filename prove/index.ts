// The proving ground (`chargeguard prove`, `npm start`): the seeds' broken consumers and the generated one, side by
// side under faults, counted at Stripe. The CLI enters here.
export { faultCatalogue, faultNames, parseFaultNames, type FaultName } from "./faults.js";
export { contenders, selectContenders } from "./contenders.js";
export { renderHtmlReport } from "./html-report.js";
export { progressBar, progressLines, progressReporter } from "./progress-bar.js";
export { provingGroundDefaults, provingGroundFull, provingGroundLimits, runProvingGround } from "./proving-ground.js";
export { describeVerdict, runOutcome, runPassed, toJson } from "./results.js";
export type { ProvingGroundResult, ScenarioOutcome } from "./run-types.js";
export { harnessDeliveryBudgetMs, harnessSettings, type HarnessSettings } from "./settings.js";
export { renderTables } from "./table.js";
export { renderCompactTable } from "./compact-table.js";
export { parseScenarioNames, scenarioCatalogue, scenarioNames, virtualTimeFactor, type ScenarioName } from "./scenarios.js";
export { runScenarios, scenarioDefaults } from "./scenario-run.js";
export { scenariosPassed } from "./scenario-report.js";
