// Who may do what, in words: each role assignment by its built-in role name, beside the principal (an identity by
// name and what it is for, or a configured producer / operator object id) and the scope it is granted on.
import type { StackConfig } from "../config/index.js";
import type { MockedResource } from "./azure-mocks.js";
import { roleName } from "./role-names.js";

export interface Grant {
  role: string;
  principal: string;
  scope: string;
  /** The ARM id it is granted on, to pick a queue's grants. */
  scopeId: string;
}

const scopeKinds: Record<string, string> = {
  queues: "queue",
  namespaces: "namespace",
  vaults: "vault",
  registries: "registry",
  components: "Application Insights",
  flexibleServers: "database server",
  workspaces: "workspace",
  resourceGroups: "resource group",
};

/** ".../namespaces/sb/queues/usage-billing" -> "queue usage-billing". */
export function scopeWords(scopeId: unknown): string {
  const segments = String(scopeId ?? "").split("/").filter(Boolean);
  const name = segments.at(-1) ?? "?";
  const kind = segments.at(-2) ?? "";
  // A grant on one secret: its name and its vault's.
  if (kind === "secrets") return `secret ${name} in vault ${segments.at(-3) ?? "?"}`;
  return `${scopeKinds[kind] ?? kind} ${name}`.trim();
}

/** principalId -> words, from the identities the plan creates and the principals the stack file names. */
export function principalLabels(config: StackConfig, mocked: readonly MockedResource[]): Map<string, string> {
  const labels = new Map<string, string>();
  const purpose = new Map<string, string>();
  for (const consumer of config.app?.consumers ?? []) {
    // The identity's name carries its app's: the purpose is enough beside it.
    purpose.set(consumer.identityName, "consumer");
    purpose.set(`${consumer.identityName}-scaler`, "KEDA scaler");
  }
  for (const identity of mocked.filter((r) => r.custom && r.type === "azure-native:managedidentity:UserAssignedIdentity")) {
    const name = String(identity.inputs.resourceName ?? identity.name);
    const why = purpose.get(name) ?? (name.includes("audit") ? "nightly audit" : undefined);
    labels.set(String(identity.state.principalId), `${name}${why ? ` (${why})` : ""}`);
  }
  for (const queue of config.queues) {
    if (queue.consumerPrincipalId) labels.set(queue.consumerPrincipalId, `consumer ${queue.consumerPrincipalId}`);
    if (queue.producerPrincipalId) labels.set(queue.producerPrincipalId, `producer ${queue.producerPrincipalId}`);
    for (const id of queue.operatorPrincipalIds ?? []) labels.set(id, `operators ${id}`);
  }
  return labels;
}

/** Every role assignment the plan creates, in words. */
export function grantsOf(config: StackConfig, mocked: readonly MockedResource[]): Grant[] {
  const labels = principalLabels(config, mocked);
  return mocked
    .filter((r) => r.custom && r.type === "azure-native:authorization:RoleAssignment")
    .map((assignment) => {
      const principalId = String(assignment.inputs.principalId);
      return {
        role: roleName(assignment.inputs.roleDefinitionId),
        principal: labels.get(principalId) ?? `${String(assignment.inputs.principalType ?? "principal")} ${principalId}`,
        scope: scopeWords(assignment.inputs.scope),
        scopeId: String(assignment.inputs.scope),
      };
    });
}

/** One line per principal on one scope: "id-x (consumer app y): Azure Service Bus Data Receiver + Azure Service Bus Data Sender". */
export function grantsByPrincipal(grants: readonly Grant[]): string[] {
  const roles = new Map<string, string[]>();
  for (const grant of grants) roles.set(grant.principal, [...(roles.get(grant.principal) ?? []), grant.role]);
  return [...roles].map(([principal, names]) => `${principal}: ${names.sort().join(" + ")}`);
}
