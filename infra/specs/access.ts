// Least-privilege access to one billing queue: Azure built-in roles at queue scope (Entra ID), or queue-level
// shared access rules when local (SAS) auth is on. Never the namespace's Manage key, never a data role at
// namespace scope. What each party needs is one definition in the tuning room (consumerQueueRights, ...), imported
// from there: BillingQueue deploys it, the proving ground and the tests run consumers with it.
import { createHash } from "node:crypto";
import type { ServiceBusDataRole } from "../../tuning/index.js";

/** Built-in role definition ids (the same in every Azure tenant). */
export const builtInRoles = {
  /** "Azure Service Bus Data Receiver": receive, peek, complete, abandon, dead-letter, renew locks. */
  serviceBusDataReceiver: "4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0",
  /** "Azure Service Bus Data Sender": send and schedule messages. */
  serviceBusDataSender: "69a216fc-b8fb-44d8-bc22-1f3c2cd27a39",
  /** "Azure Service Bus Data Owner": every data operation and entity management. */
  serviceBusDataOwner: "090c5cfd-751d-490a-894a-3ce6f1109419",
  /** "AcrPull": pull images from a container registry. */
  acrPull: "7f951dda-4ed3-4680-a7ca-43fe172d538d",
  /** "Key Vault Secrets User": read secret values (RBAC vaults). */
  keyVaultSecretsUser: "4633458b-17de-408a-b874-0445c86b69e6",
  /** "Monitoring Metrics Publisher": send telemetry to Application Insights with an Entra token (local auth off). */
  monitoringMetricsPublisher: "3913510d-42f4-4e42-8a64-420c390055eb",
} as const;

/** Role definition id by the role's name, for the rights definitions. */
export const roleGuidOf: Readonly<Record<ServiceBusDataRole, string>> = Object.freeze({
  "Azure Service Bus Data Receiver": builtInRoles.serviceBusDataReceiver,
  "Azure Service Bus Data Sender": builtInRoles.serviceBusDataSender,
  "Azure Service Bus Data Owner": builtInRoles.serviceBusDataOwner,
});

/** The role names of Service Bus data roles, by definition id (lower case), for the policy pack. */
export const dataRoleNameOf: Readonly<Record<string, ServiceBusDataRole>> = Object.freeze(
  Object.fromEntries(Object.entries(roleGuidOf).map(([name, guid]) => [guid.toLowerCase(), name as ServiceBusDataRole])),
);

/** `/subscriptions/<id>` of an Azure resource id, so role definition ids live in the resource's subscription. */
export function subscriptionScopeOf(resourceId: string): string {
  const match = /^\/subscriptions\/[^/]+/i.exec(resourceId);
  if (!match) throw new Error(`not an Azure resource id (expected /subscriptions/...): ${resourceId}`);
  return match[0];
}

export function roleDefinitionId(resourceId: string, roleGuid: string): string {
  return `${subscriptionScopeOf(resourceId)}/providers/Microsoft.Authorization/roleDefinitions/${roleGuid}`;
}

/** The namespace of chargeguard's role assignment names: uuidv5(URL namespace, "https://chargeguard.dev/role-assignment"). */
export const roleAssignmentNamespace = "06c7e112-2264-5f41-93a8-55a087a2b929";

/** A name-based (version 5, SHA-1) UUID, RFC 4122 section 4.3. */
export function uuidV5(name: string, namespace: string): string {
  const namespaceBytes = Buffer.from(namespace.replace(/-/g, ""), "hex");
  if (namespaceBytes.length !== 16) throw new Error(`not a UUID: ${namespace}`);
  const hash = createHash("sha1").update(namespaceBytes).update(name, "utf8").digest().subarray(0, 16);
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The role assignment's name (a GUID) from what makes it unique, as Azure Verified Modules name theirs with
 * `guid(scope, principalId, roleDefinitionId)`: re-creating state or the component reuses the same name instead of
 * failing with RoleAssignmentExists. Case-insensitive, as Azure ids are.
 */
export function roleAssignmentName(scope: string, principalId: string, roleGuid: string): string {
  return uuidV5([scope, principalId, roleGuid].map((part) => part.toLowerCase()).join("/"), roleAssignmentNamespace);
}
