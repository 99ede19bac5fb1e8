// The order Azure does not infer from properties, checked on the dependency graph: a Container App is created only
// after every role assignment of its identities (a Key Vault reference or image pull made before a grant exists fails
// the revision), its identity's Entra mapping in the guard database, and the vault's private endpoint when the vault
// is private; a private PostgreSQL server only after its DNS zone is linked to the VNet. Plain policy objects.
import type { PolicyResource, StackValidationArgs, StackValidationPolicy } from "@pulumi/policy";
import { list, obj, ofType } from "./policy-helpers.js";
import { types } from "./resource-types.js";

const lower = (value: unknown) => (typeof value === "string" ? value.toLowerCase() : undefined);
const waitsFor = (resource: PolicyResource, dependency: PolicyResource) => resource.dependencies.some((d) => d.urn === dependency.urn);

function appPrerequisites(args: StackValidationArgs, app: PolicyResource): { what: string; resource: PolicyResource }[] {
  const identityIds = new Set(list(obj(app.props.identity).userAssignedIdentities).map(lower));
  const identities = ofType(args, types.userAssignedIdentity).filter((identity) => identityIds.has(lower(identity.props.id)));
  const principals = new Set(identities.map((identity) => identity.props.principalId));
  const clientId = list(obj(list(obj(app.props.template).containers)[0]).env).map(obj).find((entry) => entry.name === "AZURE_CLIENT_ID")?.value;
  const own = identities.find((identity) => identity.props.clientId === clientId);
  const usesVault = list(obj(app.props.configuration).secrets).some((secret) => typeof obj(secret).keyVaultUrl === "string");
  return [
    ...ofType(args, types.roleAssignment)
      .filter((grant) => principals.has(grant.props.principalId))
      .map((grant) => ({ what: `role assignment ${String(grant.props.roleAssignmentName ?? grant.name)}`, resource: grant })),
    ...ofType(args, types.postgresEntraAdministrator)
      .filter((admin) => own !== undefined && admin.props.objectId === own.props.principalId)
      .map((admin) => ({ what: `its identity's database mapping ${String(admin.props.principalName ?? admin.name)}`, resource: admin })),
    ...(usesVault
      ? ofType(args, types.privateEndpoint)
          .filter((endpoint) => list(endpoint.props.privateLinkServiceConnections).some((c) => list(obj(c).groupIds).includes("vault")))
          .map((endpoint) => ({ what: `the vault's private endpoint ${String(endpoint.props.privateEndpointName ?? endpoint.name)}`, resource: endpoint }))
      : []),
  ];
}

export const creationOrder: StackValidationPolicy = {
  name: "creation-order",
  description:
    "Consumer apps wait for their identities' role assignments, their identity's database mapping and the vault's private endpoint; a private PostgreSQL server waits for its DNS zone's VNet link. Azure infers none of these.",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    for (const app of ofType(args, types.containerApp)) {
      for (const { what, resource } of appPrerequisites(args, app)) {
        if (!waitsFor(app, resource)) report(`app ${String(app.props.containerAppName ?? app.name)}: does not wait for ${what} (dependsOn): Azure would create it first`, app.urn);
      }
    }
    for (const server of ofType(args, types.postgresServer)) {
      const zoneId = lower(obj(server.props.network).privateDnsZoneArmResourceId);
      if (zoneId === undefined) continue;
      const zoneName = zoneId.split("/").pop();
      for (const link of ofType(args, types.virtualNetworkLink).filter((l) => lower(l.props.privateZoneName) === zoneName)) {
        if (!waitsFor(server, link)) report(`server ${String(server.props.serverName ?? server.name)}: does not wait for the VNet link of its DNS zone ${zoneName} (dependsOn): Azure fails to create it before the zone resolves`, server.urn);
      }
    }
  },
};

/** The order Azure Verified Modules run a Flexible Server's operations in (configurations one at a time). */
const SERVER_OPERATION_ORDER = [
  [types.postgresDatabase, "database"],
  [types.postgresFirewallRule, "firewall rule"],
  [types.postgresConfiguration, "configuration"],
  [types.postgresEntraAdministrator, "Entra administrator"],
] as const;

/** Everything a resource waits for, directly or through what it waits for. */
function transitiveDependencies(resource: PolicyResource): Set<string> {
  const seen = new Set<string>();
  const pending = [...resource.dependencies];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (seen.has(next.urn)) continue;
    seen.add(next.urn);
    pending.push(...next.dependencies);
  }
  return seen;
}

const operationLabel = (resource: PolicyResource, what: string) =>
  `${what} ${String(resource.props.databaseName ?? resource.props.firewallRuleName ?? resource.props.configurationName ?? resource.props.principalName ?? resource.name)}`;

export const serverOperationsSerial: StackValidationPolicy = {
  name: "postgres-operations-serial",
  description:
    "Operations on one PostgreSQL Flexible Server (databases, firewall rules, configurations, Entra administrators) run one after another in that order (dependsOn): the server answers concurrent ones ServerIsBusy (Azure/azure-postgresql issue 134).",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    for (const server of ofType(args, types.postgresServer)) {
      const serverName = lower(server.props.serverName ?? server.props.name);
      const chain = SERVER_OPERATION_ORDER.flatMap(([type, what]) =>
        ofType(args, type)
          .filter((operation) => lower(operation.props.serverName) === serverName)
          .map((resource) => ({ resource, what })),
      );
      for (const [index, { resource, what }] of chain.entries()) {
        const before = transitiveDependencies(resource);
        for (const earlier of chain.slice(0, index)) {
          // Two of one kind may run in either order, one after the other; across kinds the order is AVM's.
          const reverse = earlier.what === what && transitiveDependencies(earlier.resource).has(resource.urn);
          if (!before.has(earlier.resource.urn) && !reverse) {
            report(
              `server ${String(server.props.serverName ?? server.name)}: ${operationLabel(resource, what)} does not wait for ${operationLabel(earlier.resource, earlier.what)} (dependsOn): the server runs one operation at a time and answers the other ServerIsBusy`,
              resource.urn,
            );
          }
        }
      }
    }
  },
};
