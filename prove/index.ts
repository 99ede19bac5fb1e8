// The proving ground (`chargeguard prove`, `npm start`): the seeds' broken consumers and the generated one, side by
// side under faults, counted at Stripe. The CLI enters here.
export { faultCatalogue, faultNames, parseFaultNames, type FaultName } from "./faults.js";
export { renderHtmlReport } from "./html-report.js";
export { progressBar } from "./progress-bar.js";
export { provingGroundDefaults, runProvingGround } from "./proving-ground.js";
export { toJson } from "./results.js";
export { renderTables } from "./table.js";
