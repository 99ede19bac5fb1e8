// The guard's PostgreSQL Flexible Server: version 16+, Microsoft Entra authentication (the consumers' identities
// are its Entra administrators and sign in with a token as the password), password authentication off in
// production, zone-redundant high availability, long and geo-redundant backups and private access (delegated
// subnet + private DNS zone) in production, `max_connections` deployed from the same number the replica
// bounds are computed from, and diagnostics in Dedicated tables.
import * as pulumi from "@pulumi/pulumi";
import {
  AdministratorsMicrosoftEntra,
  Configuration,
  Database,
  FirewallRule,
  Server,
} from "@pulumi/azure-native/dbforpostgresql/index.js";
import { deleteLock } from "./delete-lock.js";
import { dedicatedDiagnostics } from "./diagnostics.js";

export interface EntraAdministrator {
  objectId: pulumi.Input<string>;
  principalName: pulumi.Input<string>;
  principalType: "ServicePrincipal" | "User" | "Group";
}

export interface GuardDatabaseArgs {
  resourceGroupName: pulumi.Input<string>;
  location?: pulumi.Input<string>;
  serverName: string;
  databaseName: string;
  /** "16" or "17". */
  version: "16" | "17";
  skuName: string;
  tier: "Burstable" | "GeneralPurpose" | "MemoryOptimized";
  storageSizeGB: number;
  /** Deployed as the server's max_connections: the connection budget is computed from it. */
  maxConnections: number;
  tenantId: pulumi.Input<string>;
  /** Entra administrators: each consumer identity (and a DBA group, if any). */
  administrators: { key: string; admin: EntraAdministrator }[];
  highAvailability: "ZoneRedundant" | "SameZone" | "Disabled";
  backupRetentionDays: number;
  geoRedundantBackup: boolean;
  /** Production: private access through a delegated subnet and a private DNS zone; no public endpoint. */
  privateAccess?: {
    delegatedSubnetId: pulumi.Input<string>;
    privateDnsZoneId: pulumi.Input<string>;
    /** The zone's link to the VNet: Azure creates the server only once the zone resolves there, and infers no order. */
    zoneLink?: pulumi.Resource;
  };
  production: boolean;
  /** A CanNotDelete lock on it (default: production); false in a maintenance window (infra/specs/locks.ts). */
  deleteLock?: boolean;
  /** Created from another server's backups at a point in time (PostgreSQL's PointInTimeRestore create mode). */
  restoreFrom?: { sourceServerId: pulumi.Input<string>; pointInTime: string };
  /**
   * Pulumi forgets the server and everything under it instead of deleting them (retainOnDelete; protect off, since
   * nothing here can delete them then): set before the run that moves the stack to a restored server, so the
   * original stays in Azure with its lock and its backups.
   */
  retain?: boolean;
  logAnalyticsWorkspaceId?: pulumi.Input<string>;
  tags?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

export class GuardDatabase extends pulumi.ComponentResource {
  readonly server: Server;
  readonly database: Database;
  readonly serverName: string;
  readonly databaseName: string;
  /** `<server>.postgres.database.azure.com` */
  readonly host: pulumi.Output<string>;
  readonly maxConnections: number;
  readonly administrators: AdministratorsMicrosoftEntra[];
  /** Every operation on the server (database, firewall rule, configurations, administrators), each after the last. */
  readonly operations: pulumi.CustomResource[] = [];
  readonly #administratorByKey = new Map<string, AdministratorsMicrosoftEntra>();

  constructor(name: string, args: GuardDatabaseArgs, opts?: pulumi.ComponentResourceOptions) {
    super("chargeguard:infra:GuardDatabase", name, {}, opts);
    this.serverName = args.serverName;
    this.databaseName = args.databaseName;
    this.maxConnections = args.maxConnections;
    this.server = new Server(
      name,
      {
        resourceGroupName: args.resourceGroupName,
        location: args.location,
        serverName: args.serverName,
        version: args.version,
        sku: { name: args.skuName, tier: args.tier },
        storage: { storageSizeGB: args.storageSizeGB, autoGrow: "Enabled" },
        // Entra only: no administrator login, so there is no password to keep anywhere.
        authConfig: { activeDirectoryAuth: "Enabled", passwordAuth: "Disabled", tenantId: args.tenantId },
        highAvailability: { mode: args.highAvailability },
        backup: { backupRetentionDays: args.backupRetentionDays, geoRedundantBackup: args.geoRedundantBackup ? "Enabled" : "Disabled" },
        network: args.privateAccess
          ? {
              delegatedSubnetResourceId: args.privateAccess.delegatedSubnetId,
              privateDnsZoneArmResourceId: args.privateAccess.privateDnsZoneId,
              publicNetworkAccess: "Disabled",
            }
          : { publicNetworkAccess: "Enabled" },
        ...(args.restoreFrom
          ? { createMode: "PointInTimeRestore", sourceServerResourceId: args.restoreFrom.sourceServerId, pointInTimeUTC: args.restoreFrom.pointInTime }
          : {}),
        tags: args.tags,
      },
      { ...this.kept(args), protect: args.production && !args.retain, ...(args.privateAccess?.zoneLink ? { dependsOn: [args.privateAccess.zoneLink] } : {}) },
    );
    if (args.deleteLock ?? args.production) {
      deleteLock(`${name}-delete-lock`, this.server.id, "production guard database; its records are what keeps charges exactly once.", this.kept(args));
    }
    this.host = this.server.fullyQualifiedDomainName.apply((fqdn) => fqdn ?? `${args.serverName}.postgres.database.azure.com`);

    // Flexible Server runs one operation at a time and answers the others ServerIsBusy (Azure/azure-postgresql
    // issue 134): every operation on the server waits for the one before, in the order Azure Verified Modules use
    // (databases, firewall rules, configurations one at a time, then the Entra administrators).
    this.database = new Database(
      `${name}-db`,
      { resourceGroupName: args.resourceGroupName, serverName: this.server.name, databaseName: args.databaseName, charset: "UTF8", collation: "en_US.utf8" },
      { ...this.kept(args), protect: args.production && !args.retain },
    );
    this.operations.push(this.database);
    if (!args.privateAccess) {
      // Development only: public access limited to Azure's own services (the Container Apps environment).
      this.operations.push(
        new FirewallRule(
          `${name}-allow-azure`,
          { resourceGroupName: args.resourceGroupName, serverName: this.server.name, firewallRuleName: "AllowAzureServices", startIpAddress: "0.0.0.0", endIpAddress: "0.0.0.0" },
          { ...this.kept(args), dependsOn: [this.lastOperation()] },
        ),
      );
    }
    this.serverParameters(name, args);
    this.administrators = this.entraAdministrators(name, args);
    if (args.logAnalyticsWorkspaceId !== undefined) {
      dedicatedDiagnostics(
        `${name}-diagnostics`,
        { settingName: `${args.serverName}-diagnostics`, resourceUri: this.server.id, workspaceId: args.logAnalyticsWorkspaceId },
        this.kept(args),
      );
    }
    this.registerOutputs({ serverId: this.server.id, host: this.host, databaseName: this.databaseName });
  }

  /** Each resource's options: under the component, and forgotten rather than deleted while the server is retained. */
  private kept(args: GuardDatabaseArgs): pulumi.CustomResourceOptions {
    return { parent: this, ...(args.retain ? { retainOnDelete: true } : {}) };
  }

  /** The last operation queued on the server: the next one waits for it. */
  private lastOperation(): pulumi.CustomResource {
    return this.operations[this.operations.length - 1] ?? this.server;
  }

  /** The server parameters the guard relies on, one at a time: its connection ceiling and the enhanced metrics the alerts read. */
  private serverParameters(name: string, args: GuardDatabaseArgs): void {
    const parameters: [string, string, string][] = [
      ["max-connections", "max_connections", String(args.maxConnections)],
      // The enhanced metrics (maximum_used_transactionIDs, for the wraparound alert) are collected only with this on.
      ["database-activity-metrics", "metrics.collector_database_activity", "on"],
    ];
    for (const [key, configurationName, value] of parameters) {
      this.operations.push(
        new Configuration(
          `${name}-${key}`,
          { resourceGroupName: args.resourceGroupName, serverName: this.server.name, configurationName, value, source: "user-override" },
          { ...this.kept(args), dependsOn: [this.lastOperation()] },
        ),
      );
    }
  }

  /** The Entra administrators, each created after the one before (the first after the last configuration). */
  private entraAdministrators(name: string, args: GuardDatabaseArgs): AdministratorsMicrosoftEntra[] {
    return args.administrators.map(({ key, admin }) => {
      const resource: AdministratorsMicrosoftEntra = new AdministratorsMicrosoftEntra(
        `${name}-entra-${key}`,
        {
          resourceGroupName: args.resourceGroupName,
          serverName: this.server.name,
          objectId: admin.objectId,
          principalName: admin.principalName,
          // PostgreSQL's API (2025-08-01, the version the provider sends) spells them user, group, servicePrincipal.
          principalType: `${admin.principalType[0]!.toLowerCase()}${admin.principalType.slice(1)}`,
          tenantId: args.tenantId,
        },
        { ...this.kept(args), dependsOn: [this.lastOperation()] },
      );
      this.operations.push(resource);
      this.#administratorByKey.set(key, resource);
      return resource;
    });
  }

  /** The Entra mapping of one principal (by its key, e.g. a consumer identity's name): an app must wait for its own. */
  administratorFor(key: string): AdministratorsMicrosoftEntra | undefined {
    return this.#administratorByKey.get(key);
  }
}
