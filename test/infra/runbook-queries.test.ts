// The runbooks' log queries read the table the rendered environments write (issue 43 item 4): a query on the
// log-analytics destination's `ContainerAppConsoleLogs_CL` finds nothing in an azure-monitor environment.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { planStack } from "../../infra/plan/run-plan.js";
import { consoleLogTables, jobLogQuery } from "../../infra/specs/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const readme = readFileSync(new URL("../../infra/README.md", import.meta.url), "utf8");

/** Every inline query in the README that reads a Container Apps console log table. */
const consoleQueries = (text: string) => [...text.matchAll(/`(ContainerAppConsoleLogs\w*) \|([^`]*)`/g)].map((m) => ({ table: m[1]!, body: m[2]! }));

/** The columns a query names: identifiers compared or projected. */
const columnsOf = (body: string) => [...body.matchAll(/\b([A-Z]\w*)\b(?=\s*(?:==|,|$))/g)].map((m) => m[1]!);

describe("runbook queries against the environments' log destination", () => {
  it.each(["dev", "prod"])("%s: the audit's log query reads the table and columns its environment's destination writes", async (stack) => {
    const plan = await planStack({ stack, cwd: root });
    const destinations = plan.report.resources
      .filter((r) => r.type === "azure-native:app:ManagedEnvironment")
      .map((r) => (r.inputs.appLogsConfiguration as { destination: keyof typeof consoleLogTables }).destination);
    expect(destinations.length).toBeGreaterThan(0);
    const queries = consoleQueries(readme);
    expect(queries.length).toBeGreaterThan(0);
    for (const destination of new Set(destinations)) {
      const table = consoleLogTables[destination];
      for (const query of queries) {
        expect(query.table, "the README's query names another destination's table").toBe(table.table);
        const known = [table.appColumn, table.jobColumn, table.logColumn, "TimeGenerated"];
        expect(columnsOf(query.body).filter((c) => !known.includes(c))).toEqual([]);
      }
    }
  });

  it("the query it documents is the one the job's table takes", () => {
    expect(readme).toContain(`\`${jobLogQuery("azure-monitor", "chargeguard-audit")}\``);
    expect(jobLogQuery("log-analytics", "chargeguard-audit")).toBe('ContainerAppConsoleLogs_CL | where ContainerJobName_s == "chargeguard-audit" | project TimeGenerated, Log_s');
  });
});
