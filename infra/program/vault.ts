// The stack's vault section: Key Vault for the consumers' Stripe keys and, in a private network, its private
// endpoint (a Key Vault reference from a consumer app resolves through it).
import type * as pulumi from "@pulumi/pulumi";
import { BillingSecrets } from "../components/billing-secrets.js";
import { PrivateLink } from "../components/private-link.js";
import type { PrivateNetwork } from "../components/private-network.js";
import { maintenanceTags, type StackContext } from "./stack-context.js";

export interface StackVault {
  secrets?: BillingSecrets;
  privateLink?: PrivateLink;
}

export function buildVault(
  { config, resourceGroupName: rg, location, tags }: StackContext,
  tenantId: pulumi.Output<string> | undefined,
  network: PrivateNetwork | undefined,
  workspaceId: pulumi.Input<string>,
): StackVault {
  const secrets =
    config.vault && tenantId
      ? new BillingSecrets("secrets", {
          resourceGroupName: rg,
          location,
          vaultName: config.vault.name,
          tenantId,
          production: config.production,
          deleteLock: config.production && !config.maintenance,
          softDeleteRetentionInDays: config.vault.softDeleteRetentionInDays,
          logAnalyticsWorkspaceId: workspaceId,
          tags: maintenanceTags(config, tags),
        })
      : undefined;
  const privateLink =
    secrets && network
      ? new PrivateLink("secrets-private", {
          resourceGroupName: rg,
          location,
          endpointName: `pe-${secrets.vaultName}`,
          targetId: secrets.vaultId,
          groupId: "vault",
          subnetId: network.privateEndpointsSubnetId,
          privateDnsZoneId: network.zoneIds.vault as pulumi.Output<string>,
          tags,
        })
      : undefined;
  return { ...(secrets ? { secrets } : {}), ...(privateLink ? { privateLink } : {}) };
}
