// The consumers' secrets (the Stripe restricted key, the Keybrake key) in a Key Vault with RBAC authorization
// (no access policies), soft delete always, purge protection and no public access in production. The values are
// set out of band (`az keyvault secret set`), never by this program: they never reach code or Pulumi state.
// Apps read them as Key Vault references through their own identity (`secretUrl`, versionless: rotation applies).
import * as pulumi from "@pulumi/pulumi";
import { Vault } from "@pulumi/azure-native/keyvault/index.js";
import { deleteLock } from "./delete-lock.js";
import { dedicatedDiagnostics } from "./diagnostics.js";

export interface BillingSecretsArgs {
  resourceGroupName: pulumi.Input<string>;
  location?: pulumi.Input<string>;
  /** Globally unique, 3-24 letters, digits and hyphens. */
  vaultName: string;
  tenantId: pulumi.Input<string>;
  /** Production: purge protection, public access off (reached through a private endpoint). */
  production: boolean;
  /** A CanNotDelete lock on it (default: production); false in a maintenance window (infra/specs/locks.ts). */
  deleteLock?: boolean;
  /** Days a deleted secret stays recoverable, 7..90, default 90. */
  softDeleteRetentionInDays?: number;
  logAnalyticsWorkspaceId?: pulumi.Input<string>;
  tags?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

export class BillingSecrets extends pulumi.ComponentResource {
  readonly vault: Vault;
  readonly vaultName: string;
  readonly vaultId: pulumi.Output<string>;
  readonly vaultUri: pulumi.Output<string>;

  constructor(name: string, args: BillingSecretsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("chargeguard:infra:BillingSecrets", name, {}, opts);
    this.vaultName = args.vaultName;
    this.vault = new Vault(
      name,
      {
        resourceGroupName: args.resourceGroupName,
        location: args.location,
        vaultName: args.vaultName,
        properties: {
          tenantId: args.tenantId,
          sku: { family: "A", name: "standard" },
          enableRbacAuthorization: true,
          enableSoftDelete: true,
          softDeleteRetentionInDays: args.softDeleteRetentionInDays ?? 90,
          // Azure refuses `false` once set and rejects it on create: leave it out outside production.
          ...(args.production ? { enablePurgeProtection: true } : {}),
          publicNetworkAccess: args.production ? "Disabled" : "Enabled",
          networkAcls: { defaultAction: args.production ? "Deny" : "Allow", bypass: "AzureServices" },
        },
        tags: args.tags,
      },
      { parent: this, protect: args.production },
    );
    this.vaultId = this.vault.id;
    if (args.deleteLock ?? args.production) {
      // Purge protection keeps a deleted vault recoverable; the lock stops the delete itself.
      deleteLock(`${name}-delete-lock`, this.vaultId, "production vault of the consumers' Stripe keys.", { parent: this });
    }
    this.vaultUri = this.vault.properties.apply((properties) => properties.vaultUri ?? `https://${args.vaultName}.vault.azure.net/`);
    if (args.logAnalyticsWorkspaceId !== undefined) {
      dedicatedDiagnostics(
        `${name}-diagnostics`,
        { settingName: `${args.vaultName}-diagnostics`, resourceUri: this.vaultId, workspaceId: args.logAnalyticsWorkspaceId },
        { parent: this },
      );
    }
    this.registerOutputs({ vaultId: this.vaultId, vaultUri: this.vaultUri });
  }

  /** The versionless URL of a secret: Container Apps re-reads it, so a rotated value reaches the app. */
  secretUrl(secretName: string): pulumi.Output<string> {
    return this.vaultUri.apply((uri) => `${uri.replace(/\/$/, "")}/secrets/${secretName}`);
  }
}
