// Application Insights' local auth (issue 35, item 7) may only be disabled once the consumers' telemetry signs in
// with Entra ID: with DisableLocalAuth, ingestion without a token is refused, the consumers' metrics never arrive and
// every billing-health alert goes silent. Today the generated consumer's exporter sends the connection string alone
// (no `credential`), so the plan keeps local auth on. This test ties the two: it fails when either side changes alone.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { planStack } from "../../infra/plan/run-plan.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const telemetrySource = readFileSync(new URL("../../templates/files/consumer/src/telemetry.ts", import.meta.url), "utf8");

describe("Application Insights' local auth and the consumers' telemetry", () => {
  it("stays on exactly as long as the generated consumer's exporter sends no Entra credential", async () => {
    const exporterOptions = /azureMonitorExporterOptions:\s*\{([^}]*)\}/.exec(telemetrySource)?.[1];
    expect(exporterOptions, "the template's Azure Monitor exporter options").toBeDefined();
    const signsInWithEntra = /\bcredential\b/.test(exporterOptions ?? "");
    for (const stack of ["dev", "prod"]) {
      const plan = await planStack({ stack, cwd: root });
      const component = plan.mocked.find((r) => r.type === "azure-native:applicationinsights:Component");
      expect(component?.inputs.disableLocalAuth === true, `${stack}: disableLocalAuth`).toBe(signsInWithEntra);
    }
  });
});
