// A built-in role for a managed identity on one scope, named deterministically (a v5 UUID of scope, principal and
// role, as Azure Verified Modules name theirs with guid()): re-created state reuses the name instead of failing with
// RoleAssignmentExists. The consumer's and the KEDA scaler's identities grant their roles through it.
import * as pulumi from "@pulumi/pulumi";
import { RoleAssignment } from "@pulumi/azure-native/authorization/index.js";
import { roleAssignmentName, roleDefinitionId } from "../specs/index.js";

export interface IdentityRoleArgs {
  principalId: pulumi.Input<string>;
  roleGuid: string;
  scope: pulumi.Input<string>;
  /** Shown in the portal: who holds the role and why. */
  description: string;
}

export function identityRoleAssignment(name: string, args: IdentityRoleArgs, opts: pulumi.CustomResourceOptions): RoleAssignment {
  return new RoleAssignment(
    name,
    {
      roleAssignmentName: pulumi.all([args.scope, args.principalId]).apply(([scope, principal]) => roleAssignmentName(scope, principal, args.roleGuid)),
      principalId: args.principalId,
      principalType: "ServicePrincipal",
      scope: args.scope,
      roleDefinitionId: pulumi.output(args.scope).apply((scope) => roleDefinitionId(scope, args.roleGuid)),
      description: args.description,
    },
    opts,
  );
}
