// Logs sent once: the plan's environment sends its logs only through its diagnostic setting; the policy fails an
// environment that sends them directly as well.
import { describe, expect, it } from "vitest";
import { stackArgs, urnOf, type PolicyTarget } from "../../infra/plan/policy-args.js";
import { logsOnce } from "../../infra/policy/log-policies.js";
import { types } from "../../infra/policy/resource-types.js";

const ENV_ID = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.App/managedEnvironments/cae";
const target = (type: string, name: string, props: Record<string, unknown>): PolicyTarget => ({ type, name, urn: urnOf("prod", "chargeguard", type, name), inputs: props, outputs: props });

async function violations(subjects: PolicyTarget[]): Promise<string[]> {
  const messages: string[] = [];
  await logsOnce.validateStack(stackArgs(subjects), (message) => messages.push(message));
  return messages;
}

describe("logs-sent-once", () => {
  it("refuses logs sent both directly and through a diagnostic setting, and accepts either alone", async () => {
    const environment = (destination: string) => target(types.managedEnvironment, "consumers", { id: ENV_ID, environmentName: "cae", appLogsConfiguration: { destination } });
    const setting = (logs: boolean) =>
      target(types.diagnosticSetting, "consumers-diagnostics", { resourceUri: ENV_ID, workspaceId: "ws", logs: logs ? [{ categoryGroup: "allLogs", enabled: true }] : [] });
    expect(await violations([environment("log-analytics"), setting(true)])).toEqual([
      'environment cae: logs go to Log Analytics both directly (appLogsConfiguration.destination "log-analytics") and through a diagnostic setting: use destination "azure-monitor"',
    ]);
    expect(await violations([environment("azure-monitor"), setting(true)])).toEqual([]);
    expect(await violations([environment("log-analytics"), setting(false)])).toEqual([]);
  });
});
