// A consumer app's own user-assigned managed identity and every role it needs, assigned before the app exists (a
// system-assigned identity cannot read Key Vault references at creation): Service Bus Data Receiver + Data Sender
// on its queue (a scheduled retry is a send), AcrPull on the registry, Key Vault Secrets User on each secret its app uses, and
// Monitoring Metrics Publisher on Application Insights (its exporter signs in with Entra ID: local auth is off).
// Assignment names are deterministic (roleAssignmentName), so re-created state never collides with
// RoleAssignmentExists. The app gets AZURE_CLIENT_ID so DefaultAzureCredential picks this identity.
import * as pulumi from "@pulumi/pulumi";
import type { RoleAssignment } from "@pulumi/azure-native/authorization/index.js";
import { UserAssignedIdentity } from "@pulumi/azure-native/managedidentity/index.js";
import { consumerQueueRights } from "../../tuning/index.js";
import { builtInRoles, roleGuidOf } from "../specs/index.js";
import { identityRoleAssignment } from "./identity-role-assignment.js";

/** One grant: a built-in role on a scope. */
export interface IdentityGrant {
  /** A label for names and plans, e.g. "queue-receiver". */
  key: string;
  role: string;
  roleGuid: string;
  scope: pulumi.Input<string>;
}

/** What a billing consumer holds on its own queue: the one rights definition BillingQueue and the proving ground use. */
export const consumerQueueRoles = consumerQueueRights.roles.map((role) => ({
  key: `queue-${role.split(" ").pop()?.toLowerCase() ?? "role"}`,
  role,
  roleGuid: roleGuidOf[role],
}));

export interface ConsumerIdentityArgs {
  resourceGroupName: pulumi.Input<string>;
  location?: pulumi.Input<string>;
  /** The identity's Azure name. */
  identityName: string;
  /** The consumer's queue: Data Receiver + Data Sender there, never at namespace scope. */
  queueId: pulumi.Input<string>;
  /** The container registry holding the image: AcrPull. */
  registryId?: pulumi.Input<string>;
  /**
   * The secrets the consumer's app references, by name, each with its ARM id: Key Vault Secrets User on each secret
   * alone, never on the vault (which also holds the audit's key and, with vault keys, keys the consumer does not use).
   */
  vaultSecretIds?: Record<string, pulumi.Input<string>>;
  /** The Application Insights component the consumer's telemetry goes to: Monitoring Metrics Publisher. */
  appInsightsId?: pulumi.Input<string>;
  tags?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

export class ConsumerIdentity extends pulumi.ComponentResource {
  readonly identity: UserAssignedIdentity;
  readonly identityName: string;
  /** The identity's resource id (Container Apps `identity` fields take it). */
  readonly resourceId: pulumi.Output<string>;
  /** Entra object id: role assignments and the database's Entra administrator. */
  readonly principalId: pulumi.Output<string>;
  /** AZURE_CLIENT_ID for DefaultAzureCredential. */
  readonly clientId: pulumi.Output<string>;
  readonly grants: IdentityGrant[];
  readonly roleAssignments: RoleAssignment[];

  constructor(name: string, args: ConsumerIdentityArgs, opts?: pulumi.ComponentResourceOptions) {
    super("chargeguard:infra:ConsumerIdentity", name, {}, opts);
    this.identityName = args.identityName;
    this.identity = new UserAssignedIdentity(
      name,
      { resourceGroupName: args.resourceGroupName, location: args.location, resourceName: args.identityName, tags: args.tags },
      { parent: this },
    );
    this.resourceId = this.identity.id;
    this.principalId = this.identity.principalId;
    this.clientId = this.identity.clientId;

    this.grants = [
      ...consumerQueueRoles.map((role) => ({ ...role, scope: args.queueId })),
      ...(args.registryId !== undefined ? [{ key: "acr-pull", role: "AcrPull", roleGuid: builtInRoles.acrPull, scope: args.registryId }] : []),
      ...Object.entries(args.vaultSecretIds ?? {}).map(([secret, id]) => ({
        key: `vault-secret-${secret}`,
        role: "Key Vault Secrets User",
        roleGuid: builtInRoles.keyVaultSecretsUser,
        scope: id,
      })),
      ...(args.appInsightsId !== undefined
        ? [{ key: "telemetry-publisher", role: "Monitoring Metrics Publisher", roleGuid: builtInRoles.monitoringMetricsPublisher, scope: args.appInsightsId }]
        : []),
    ];
    this.roleAssignments = this.grants.map((grant) =>
      identityRoleAssignment(
        `${name}-${grant.key}`,
        { principalId: this.principalId, roleGuid: grant.roleGuid, scope: grant.scope, description: `chargeguard: ${grant.role} for consumer ${args.identityName}` },
        { parent: this },
      ),
    );

    this.registerOutputs({
      resourceId: this.resourceId,
      principalId: this.principalId,
      clientId: this.clientId,
      roleAssignmentIds: this.roleAssignments.map((assignment) => assignment.id),
    });
  }
}
