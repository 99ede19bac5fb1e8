// Least-privilege access to one billing queue: Azure built-in roles at queue scope (Entra ID), or queue-level
// shared access rules with a single right when local (SAS) auth is on. Never the namespace's Manage key.

/** Built-in role definition ids (the same in every Azure tenant). */
export const builtInRoles = {
  /** "Azure Service Bus Data Receiver": receive, complete, abandon, dead-letter, renew locks. */
  serviceBusDataReceiver: "4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0",
  /** "Azure Service Bus Data Sender": send and schedule messages. */
  serviceBusDataSender: "69a216fc-b8fb-44d8-bc22-1f3c2cd27a39",
} as const;

/** `/subscriptions/<id>` of an Azure resource id, so role definition ids live in the resource's subscription. */
export function subscriptionScopeOf(resourceId: string): string {
  const match = /^\/subscriptions\/[^/]+/i.exec(resourceId);
  if (!match) throw new Error(`not an Azure resource id (expected /subscriptions/...): ${resourceId}`);
  return match[0];
}

export function roleDefinitionId(resourceId: string, roleGuid: string): string {
  return `${subscriptionScopeOf(resourceId)}/providers/Microsoft.Authorization/roleDefinitions/${roleGuid}`;
}
