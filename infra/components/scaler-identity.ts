// The identity KEDA's azure-servicebus scaler signs in with, apart from the consumer's: the scaler reads the queue's
// runtime properties (its message count), a management operation that needs the Manage claim, i.e. Azure Service
// Bus Data Owner (azure-container-apps #1138, keda #7822); Receiver and Sender are not enough. Data Owner is granted
// on the one queue only, and the consumer's own identity never holds it. Named deterministically like every grant.
import * as pulumi from "@pulumi/pulumi";
import type { RoleAssignment } from "@pulumi/azure-native/authorization/index.js";
import { UserAssignedIdentity } from "@pulumi/azure-native/managedidentity/index.js";
import { builtInRoles } from "../specs/index.js";
import { identityRoleAssignment } from "./identity-role-assignment.js";

export interface ScalerIdentityArgs {
  resourceGroupName: pulumi.Input<string>;
  location?: pulumi.Input<string>;
  /** The identity's Azure name, e.g. id-usage-billing-consumer-scaler. */
  identityName: string;
  /** The queue the scale rule reads: Data Owner there, nowhere else. */
  queueId: pulumi.Input<string>;
  tags?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

export class ScalerIdentity extends pulumi.ComponentResource {
  readonly identity: UserAssignedIdentity;
  /** The identity's resource id: the scale rule's `identity`, and one of the app's user-assigned identities. */
  readonly resourceId: pulumi.Output<string>;
  readonly principalId: pulumi.Output<string>;
  /** Data Owner on the queue: the scale rule reads nothing before it exists. */
  readonly roleAssignment: RoleAssignment;

  constructor(name: string, args: ScalerIdentityArgs, opts?: pulumi.ComponentResourceOptions) {
    super("chargeguard:infra:ScalerIdentity", name, {}, opts);
    this.identity = new UserAssignedIdentity(
      name,
      { resourceGroupName: args.resourceGroupName, location: args.location, resourceName: args.identityName, tags: args.tags },
      { parent: this },
    );
    this.resourceId = this.identity.id;
    this.principalId = this.identity.principalId;
    this.roleAssignment = identityRoleAssignment(
      `${name}-queue-owner`,
      {
        principalId: this.principalId,
        roleGuid: builtInRoles.serviceBusDataOwner,
        scope: args.queueId,
        description: `chargeguard: Azure Service Bus Data Owner (Manage: queue runtime properties) for KEDA scaler ${args.identityName}`,
      },
      { parent: this },
    );
    this.registerOutputs({ resourceId: this.resourceId, principalId: this.principalId, roleAssignmentId: this.roleAssignment.id });
  }
}
