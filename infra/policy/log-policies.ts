// Logs sent once: a Container Apps environment whose logs go straight to Log Analytics (destination "log-analytics")
// and also through a diagnostic setting with log categories writes every console line twice, paid twice and
// counted twice by any query. Send them one way: destination "azure-monitor" with the diagnostic setting (Dedicated
// tables), or "log-analytics" without log categories in a setting. Plain policy objects.
import type { StackValidationPolicy } from "@pulumi/policy";
import { list, obj, ofType } from "./policy-helpers.js";
import { types } from "./resource-types.js";

export const logsOnce: StackValidationPolicy = {
  name: "logs-sent-once",
  description: "A Container Apps environment sends its logs to Log Analytics one way: not through appLogsConfiguration and a diagnostic setting's log categories both.",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    const settings = ofType(args, types.diagnosticSetting);
    for (const environment of ofType(args, types.managedEnvironment)) {
      if (obj(environment.props.appLogsConfiguration).destination !== "log-analytics") continue;
      const id = String(environment.props.id ?? "").toLowerCase();
      const twice = settings.some(
        (setting) => String(setting.props.resourceUri ?? "").toLowerCase() === id && list(setting.props.logs).some((log) => obj(log).enabled === true),
      );
      if (twice) {
        report(
          `environment ${String(environment.props.environmentName ?? environment.name)}: logs go to Log Analytics both directly (appLogsConfiguration.destination "log-analytics") and through a diagnostic setting: use destination "azure-monitor"`,
          environment.urn,
        );
      }
    }
  },
};
