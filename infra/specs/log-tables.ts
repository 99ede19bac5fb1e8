// Where a Container Apps environment's console logs land, by its `appLogsConfiguration.destination`: `azure-monitor`
// with Dedicated diagnostic settings writes the resource-specific table `ContainerAppConsoleLogs`; `log-analytics`
// writes the custom-log table `ContainerAppConsoleLogs_CL`, whose columns carry type suffixes (`_s`). A runbook's query
// must read the table its environment writes, or it finds nothing (Microsoft: Log storage and monitoring options in
// Azure Container Apps; the tables' references in Azure Monitor Logs).
export interface ConsoleLogTable {
  table: string;
  /** The columns a runbook filters and reads: the app, the job, the line. */
  appColumn: string;
  jobColumn: string;
  logColumn: string;
}

export const consoleLogTables: Record<"azure-monitor" | "log-analytics", ConsoleLogTable> = {
  "azure-monitor": { table: "ContainerAppConsoleLogs", appColumn: "ContainerAppName", jobColumn: "JobName", logColumn: "Log" },
  "log-analytics": { table: "ContainerAppConsoleLogs_CL", appColumn: "ContainerAppName_s", jobColumn: "ContainerJobName_s", logColumn: "Log_s" },
};

/** The query for one job's console output, in the table the destination writes. */
export function jobLogQuery(destination: keyof typeof consoleLogTables, job: string): string {
  const t = consoleLogTables[destination];
  return `${t.table} | where ${t.jobColumn} == "${job}" | project TimeGenerated, ${t.logColumn}`;
}
