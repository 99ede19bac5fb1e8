// Adding a consumer to a running production stack: its app must not arrive in the run that creates its identity. The
// database's own administrator (the DBA) creates the consumer's role with the identity's object id
// (pgaadauth_create_principal_with_oid), which exists only once the identity does, and ARM cannot create database
// roles; an app created with it would start with no role and fail every claim until the DBA's step. Where the
// identity is an Entra administrator of the server (development), Azure maps it itself and nothing waits.
import { isType, types } from "../policy/resource-types.js";
import type { DeployedResource } from "./deployed-resources.js";

export interface AppBeforeItsRole {
  app: string;
  identity: string;
}

const envValue = (app: DeployedResource, name: string): unknown => {
  const containers = (app.inputs.template as { containers?: { env?: { name?: string; value?: unknown }[] }[] } | undefined)?.containers ?? [];
  return containers.flatMap((container) => container.env ?? []).find((entry) => entry.name === name)?.value;
};

/** Apps this plan creates in the same run as their identity, on a server whose roles the DBA creates. */
export function appsBeforeTheirRole(deployed: readonly DeployedResource[], planned: readonly DeployedResource[]): AppBeforeItsRole[] {
  if (!planned.some((resource) => isType(resource.type, types.postgresServer))) return [];
  const isNew = (resource: DeployedResource) => !deployed.some((before) => before.name === resource.name && isType(before.type, resource.type));
  const administrators = new Set(planned.filter((r) => isType(r.type, types.postgresEntraAdministrator)).map((r) => String(r.inputs.objectId)));
  const identities = planned.filter((r) => isType(r.type, types.userAssignedIdentity));
  return planned
    .filter((app) => isType(app.type, types.containerApp) && isNew(app) && envValue(app, "DATABASE_AUTH") === "entra")
    .flatMap((app) => {
      const identity = identities.find((candidate) => candidate.inputs.clientId !== undefined && candidate.inputs.clientId === envValue(app, "AZURE_CLIENT_ID"));
      if (!identity || !isNew(identity) || administrators.has(String(identity.inputs.principalId))) return [];
      return [{ app: String(app.inputs.containerAppName ?? app.name), identity: String(identity.inputs.resourceName ?? identity.name) }];
    });
}
