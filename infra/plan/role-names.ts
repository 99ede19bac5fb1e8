// Built-in Azure role names by definition id, for the plan's text: a platform engineer reads "Azure Service Bus Data
// Receiver", never 4f6d3b9b-.... The ids the program assigns come from access.ts; the others are roles a stack may
// grant beside them (Application Insights' ingestion role, the vault officer, a monitoring reader), so a grant added
// in a component reads by name too. An id missing here is shown as "role <id>", never dropped.
import { builtInRoles } from "../specs/index.js";

const roleNameById: ReadonlyMap<string, string> = new Map(
  ([
    [builtInRoles.serviceBusDataReceiver, "Azure Service Bus Data Receiver"],
    [builtInRoles.serviceBusDataSender, "Azure Service Bus Data Sender"],
    [builtInRoles.serviceBusDataOwner, "Azure Service Bus Data Owner"],
    [builtInRoles.acrPull, "AcrPull"],
    [builtInRoles.keyVaultSecretsUser, "Key Vault Secrets User"],
    [builtInRoles.monitoringMetricsPublisher, "Monitoring Metrics Publisher"],
    // Not assigned by access.ts today; ids from Azure's built-in roles list (the same in every tenant).
    ["43d0d8ad-25c7-4714-9337-8ba259a9fe05", "Monitoring Reader"],
    ["b86a8fe4-44ce-4948-aee5-eccb2c155cd7", "Key Vault Secrets Officer"],
  ] as [string, string][]).map(([id, name]) => [id.toLowerCase(), name]),
);

/** The role's built-in name from a role definition id (full ARM id or bare GUID, any case), or "role <guid>". */
export function roleName(roleDefinitionId: unknown): string {
  const guid = String(roleDefinitionId ?? "").split("/").pop()?.toLowerCase() ?? "";
  return roleNameById.get(guid) ?? `role ${guid || "?"}`;
}
