// The stack's database section: the guard's PostgreSQL server and database, privately reachable in a private network.
import * as pulumi from "@pulumi/pulumi";
import { getClientConfigOutput } from "@pulumi/azure-native/authorization/index.js";
import type { ConsumerIdentity } from "../components/consumer-identity.js";
import { GuardDatabase } from "../components/guard-database.js";
import type { PrivateNetwork } from "../components/private-network.js";
import type { DatabaseConfig } from "../config/index.js";
import { RETAINED_TAG, RETAINED_TAG_VALUE } from "../specs/index.js";
import { maintenanceTags, type StackContext } from "./stack-context.js";

/**
 * With an administrator of its own (production requires one), each consumer gets a role owning only its schema
 * (infra/specs/database-roles.ts, run by that administrator after phase one). Without (development), the consumers'
 * identities are the administrators, so the guard can create its tables unattended.
 */
function databaseAdministrators(database: DatabaseConfig, identities: ConsumerIdentity[]) {
  return database.administrators.length > 0
    ? database.administrators.map((admin) => ({ key: admin.principalName, admin }))
    : identities.map((identity) => ({
        key: identity.identityName,
        admin: { objectId: identity.principalId, principalName: identity.identityName, principalType: "ServicePrincipal" as const },
      }));
}

function privateAccess(network: PrivateNetwork | undefined) {
  return network
    ? {
        privateAccess: {
          delegatedSubnetId: network.databaseSubnetId,
          privateDnsZoneId: network.zoneIds.postgres as pulumi.Output<string>,
          ...(network.linkByZone.postgres ? { zoneLink: network.linkByZone.postgres } : {}),
        },
      }
    : {};
}

/** Day two, restore to a point in time: the server is created from the original's backups, in its resource group. */
function restore(database: DatabaseConfig, rg: string) {
  const from = database.restoreFrom;
  if (!from) return {};
  const subscription = getClientConfigOutput().subscriptionId;
  return {
    restoreFrom: {
      sourceServerId: pulumi.interpolate`/subscriptions/${subscription}/resourceGroups/${rg}/providers/Microsoft.DBforPostgreSQL/flexibleServers/${from.serverName}`,
      pointInTime: from.pointInTime,
    },
  };
}

export function buildGuardDatabase(
  { config, resourceGroupName: rg, location, tags }: StackContext,
  tenantId: pulumi.Output<string> | undefined,
  identities: ConsumerIdentity[],
  network: PrivateNetwork | undefined,
  workspaceId: pulumi.Input<string>,
): GuardDatabase | undefined {
  const database = config.database;
  if (!database || !tenantId) return undefined;
  return new GuardDatabase("guard-db", {
    resourceGroupName: rg,
    location,
    serverName: database.serverName,
    databaseName: database.databaseName,
    version: database.version,
    skuName: database.skuName,
    tier: database.tier,
    storageSizeGB: database.storageSizeGB,
    maxConnections: database.maxConnections,
    tenantId,
    administrators: databaseAdministrators(database, identities),
    highAvailability: database.highAvailability,
    backupRetentionDays: database.backupRetentionDays,
    geoRedundantBackup: database.geoRedundantBackup,
    ...privateAccess(network),
    production: config.production,
    deleteLock: config.production && !config.maintenance,
    ...restore(database, rg),
    retain: database.retain,
    logAnalyticsWorkspaceId: workspaceId,
    tags: { ...maintenanceTags(config, tags), ...(database.retain ? { [RETAINED_TAG]: RETAINED_TAG_VALUE } : {}) },
  });
}
