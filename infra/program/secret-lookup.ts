// Phase two's lookup of a vault secret through Azure Resource Manager (which answers even when the vault's data plane
// is private, and never returns the value): `pulumi up` stops before any grant, app or job when the secret is not
// there yet. The answer gives the secret's ARM id, the scope of each identity's Key Vault Secrets User grant on it
// (a role assignment on a secret that does not exist yet has nothing to attach to: hence phase two, not one), and its
// versionless URL, which the apps and the audit job reference. One lookup per secret, however many readers.
import * as pulumi from "@pulumi/pulumi";
import { getSecretOutput } from "@pulumi/azure-native/keyvault/index.js";
import type { BillingSecrets } from "../components/billing-secrets.js";
import type { StackConfig } from "../config/index.js";

export interface PresentSecret {
  /** `<vault id>/secrets/<name>`: the scope of a grant on this secret alone. */
  id: pulumi.Output<string>;
  /** Versionless: the apps follow rotations. */
  url: pulumi.Output<string>;
}

const lookups = new WeakMap<BillingSecrets, Map<string, PresentSecret>>();

export function presentSecret(config: StackConfig, secrets: BillingSecrets, secretName: string): PresentSecret {
  const known = lookups.get(secrets) ?? new Map<string, PresentSecret>();
  lookups.set(secrets, known);
  const cached = known.get(secretName);
  if (cached) return cached;
  const secret = getSecretOutput({ resourceGroupName: config.resourceGroupName, vaultName: secrets.vaultName, secretName }, { dependsOn: [secrets.vault] });
  const found: PresentSecret = {
    id: secret.id,
    url: pulumi.all([secret.properties, secrets.secretUrl(secretName)]).apply(([properties, fallback]) => (properties.secretUri ?? fallback).replace(/\/[0-9a-f]{32}$/i, "")),
  };
  known.set(secretName, found);
  return found;
}
