// A billing queue's access, least privilege: Entra role assignments on this queue only for its consumer, producer
// and operators and, where the namespace still allows local auth, one SAS rule each for consumer and producer.
import * as pulumi from "@pulumi/pulumi";
import { RoleAssignment } from "@pulumi/azure-native/authorization/index.js";
import { QueueAuthorizationRule, type Queue } from "@pulumi/azure-native/servicebus/index.js";
import { consumerQueueRights, operatorQueueRights, producerQueueRights, type QueueRights } from "../../tuning/index.js";
import { roleAssignmentName, roleDefinitionId, roleGuidOf } from "../specs/index.js";
import type { BillingNamespace } from "./billing-namespace.js";

export type PrincipalType = "ServicePrincipal" | "User" | "Group";

/** One line per grant, for plans and reviews: who may do what on this queue. */
export interface AccessGrant {
  kind: "role" | "sasRule";
  /** e.g. "Azure Service Bus Data Receiver" or "Listen". */
  right: string;
  /** Principal id (role) or rule name (sasRule). */
  holder: string;
}

/** Who the queue grants access to (BillingQueueArgs' principal fields). */
export interface QueueParties {
  /** Entra object id of the consumer's identity: gets consumerQueueRights' roles (Receiver + Sender) on this queue only. */
  consumerPrincipalId?: pulumi.Input<string>;
  /** Entra object id of the producer's identity: gets "Azure Service Bus Data Sender" on this queue only. */
  producerPrincipalId?: pulumi.Input<string>;
  /** Default "ServicePrincipal" (managed identities, app registrations); Azure refuses a mismatched type. */
  consumerPrincipalType?: PrincipalType;
  producerPrincipalType?: PrincipalType;
  /** Entra object ids of operators: what `chargeguard dlq peek|resubmit` needs (operatorQueueRights) on this queue only. */
  operatorPrincipalIds?: pulumi.Input<string>[];
  /** Default "Group" (an on-call group); Azure refuses a mismatched type. */
  operatorPrincipalType?: PrincipalType;
}

export interface QueueAccess {
  roleAssignments: RoleAssignment[];
  authorizationRules: QueueAuthorizationRule[];
  access: AccessGrant[];
}

interface Party {
  party: string;
  principalId: pulumi.Input<string>;
  principalType: PrincipalType;
  rights: QueueRights;
}

function partiesOf(args: QueueParties): Party[] {
  return [
    ...(args.consumerPrincipalId === undefined
      ? []
      : [{ party: "consumer", principalId: args.consumerPrincipalId, principalType: args.consumerPrincipalType ?? "ServicePrincipal", rights: consumerQueueRights }]),
    ...(args.producerPrincipalId === undefined
      ? []
      : [{ party: "producer", principalId: args.producerPrincipalId, principalType: args.producerPrincipalType ?? "ServicePrincipal", rights: producerQueueRights }]),
    ...(args.operatorPrincipalIds ?? []).map((principalId, index) => ({
      party: `operator-${index + 1}`,
      principalId,
      principalType: args.operatorPrincipalType ?? "Group",
      rights: operatorQueueRights,
    })),
  ];
}

function grantRoles(parent: pulumi.Resource, name: string, queueName: string, queue: Queue, parties: Party[], into: QueueAccess): void {
  for (const { party, principalId, principalType, rights } of parties) {
    for (const role of rights.roles) {
      const roleGuid = roleGuidOf[role];
      const suffix = role.replace("Azure Service Bus Data ", "").toLowerCase();
      into.roleAssignments.push(
        new RoleAssignment(
          `${name}-${party}-${suffix}`,
          {
            roleAssignmentName: pulumi.all([queue.id, principalId]).apply(([scope, principal]) => roleAssignmentName(scope, principal, roleGuid)),
            principalId,
            principalType,
            scope: queue.id,
            roleDefinitionId: queue.id.apply((id) => roleDefinitionId(id, roleGuid)),
            description: `chargeguard: ${party} of billing queue ${queueName} (${rights.because})`,
          },
          // A new name cannot be created beside an assignment of the same principal, role and scope (Azure
          // refuses RoleAssignmentExists), so a replacement deletes first.
          { parent, deleteBeforeReplace: true },
        ),
      );
      into.access.push({ kind: "role", right: role, holder: typeof principalId === "string" ? principalId : `${party} principal` });
    }
  }
}

function sasRules(parent: pulumi.Resource, name: string, namespace: BillingNamespace, queueName: string, queue: Queue, into: QueueAccess): void {
  for (const [party, rights] of [["consumer", consumerQueueRights], ["producer", producerQueueRights]] as const) {
    const ruleName = `${queueName}-${party}`;
    into.authorizationRules.push(
      new QueueAuthorizationRule(
        `${name}-${party}`,
        {
          resourceGroupName: namespace.resourceGroupName,
          namespaceName: namespace.namespaceName,
          queueName: queue.name,
          authorizationRuleName: ruleName,
          rights: [...rights.sasRights],
        },
        { parent },
      ),
    );
    into.access.push({ kind: "sasRule", right: rights.sasRights.join("+"), holder: ruleName });
  }
}

/** The queue's role assignments and SAS rules, children of `parent`, and one AccessGrant line per grant. */
export function grantQueueAccess(
  parent: pulumi.Resource,
  name: string,
  namespace: BillingNamespace,
  queueName: string,
  queue: Queue,
  parties: QueueParties,
): QueueAccess {
  const access: QueueAccess = { roleAssignments: [], authorizationRules: [], access: [] };
  grantRoles(parent, name, queueName, queue, partiesOf(parties), access);
  if (namespace.localAuthEnabled) sasRules(parent, name, namespace, queueName, queue, access);
  return access;
}
