// The consumer apps of a stack and what each must find in place before Azure creates it, since Azure infers none of
// it from the app's properties: its identities' role assignments (queue, registry, vault, and KEDA's Manage), its
// identity's mapping in the guard database, the Stripe key present in the vault (looked up through Azure Resource
// Manager, which answers even when the vault's data plane is private) and, in a private network, the vault's private
// endpoint and the DNS links that resolve it. With `chargeguard:bootstrap: true` no app is built: the first phase.
import * as pulumi from "@pulumi/pulumi";
import type { BillingQueue } from "../components/billing-queue.js";
import type { BillingSecrets } from "../components/billing-secrets.js";
import { ConsumerApp, type VaultSecretReference } from "../components/consumer-app.js";
import { ConsumerEnvironment } from "../components/consumer-environment.js";
import type { ConsumerIdentity } from "../components/consumer-identity.js";
import type { GuardDatabase } from "../components/guard-database.js";
import type { PrivateNetwork } from "../components/private-network.js";
import { ScalerIdentity } from "../components/scaler-identity.js";
import type { AuditIdentity } from "../components/audit-job.js";
import { buildAuditJob } from "./audit.js";
import { presentSecret } from "./secret-lookup.js";
import type { StackConfig } from "../config/index.js";

export interface ConsumerAppsArgs {
  config: StackConfig;
  location: string;
  tags: Record<string, string>;
  namespaceName: pulumi.Input<string>;
  queues: BillingQueue[];
  /** Each consumer's identity, in the order of the config's consumers. */
  identities: ConsumerIdentity[];
  secrets?: BillingSecrets;
  /** The vault's private endpoint and DNS zone group: a Key Vault reference resolves through them in a VNet. */
  vaultPrivateLink?: pulumi.Resource[];
  network?: PrivateNetwork;
  database?: GuardDatabase;
  logAnalytics: { workspaceId: pulumi.Input<string> };
  appInsightsConnectionString: pulumi.Input<string>;
  /** The nightly audit's identity (phase one): its job comes with the apps. */
  auditIdentity?: AuditIdentity;
  actionGroupId?: pulumi.Input<string>;
}

function vaultSecrets(args: ConsumerAppsArgs): VaultSecretReference[] {
  const { config, secrets } = args;
  if (!secrets || !config.vault) return [];
  return [
    { name: "stripe-api-key", env: "STRIPE_API_KEY", keyVaultUrl: presentSecret(config, secrets, config.vault.secrets.stripeApiKey).url },
    ...(config.vault.secrets.keybrakeApiKey
      ? [{ name: "keybrake-api-key", env: "KEYBRAKE_API_KEY", keyVaultUrl: presentSecret(config, secrets, config.vault.secrets.keybrakeApiKey).url }]
      : []),
  ];
}

/** Builds the Container Apps environment and one app per consumer; none in the bootstrap phase. */
export function buildConsumerApps(args: ConsumerAppsArgs): ConsumerApp[] {
  const { config, tags } = args;
  const consumers = config.app?.consumers ?? [];
  if (!config.app || consumers.length === 0 || config.bootstrap) return [];
  const rg = config.resourceGroupName;
  const environment = new ConsumerEnvironment("consumers", {
    resourceGroupName: rg,
    location: args.location,
    environmentName: config.app.environmentName,
    logAnalytics: args.logAnalytics,
    ...(args.network ? { infrastructureSubnetId: args.network.appsSubnetId, zoneRedundant: true } : {}),
    tags,
  });
  const secretReferences = vaultSecrets(args);
  if (args.auditIdentity && args.secrets && config.vault) {
    buildAuditJob(
      { config, resourceGroupName: rg, location: args.location, tags },
      {
        identity: args.auditIdentity,
        environmentId: environment.environmentId,
        stripeKeyUrl: presentSecret(config, args.secrets, config.vault.secrets.stripeAuditKey).url,
        actionGroupId: args.actionGroupId,
        dependsOn: [...(args.vaultPrivateLink ?? []), ...(args.network?.links ?? [])],
      },
    );
  }
  // A consumer in its own first phase (added to a running stack) has its identity, not its app yet.
  return consumers.flatMap((consumer, index) => {
    if (consumer.bootstrap) return [];
    const queue = args.queues.find((q) => q.queueName === consumer.queue) as BillingQueue;
    const identity = args.identities[index] as ConsumerIdentity;
    // KEDA's identity comes with its app: until the app exists nothing scales, and a scaler whose grant is still
    // propagating only reads the queue again at its next poll.
    const scaler = new ScalerIdentity(`${consumer.identityName}-scaler`, {
      resourceGroupName: rg,
      location: args.location,
      identityName: `${consumer.identityName}-scaler`,
      queueId: queue.queue.id,
      tags,
    });
    const mapping = args.database?.administratorFor(identity.identityName);
    return new ConsumerApp(
      consumer.appName,
      {
        resourceGroupName: rg,
        location: args.location,
        appName: consumer.appName,
        environmentId: environment.environmentId,
        identity,
        scaler,
        queue,
        namespaceName: args.namespaceName,
        image: consumer.image,
        ...(config.app?.registry ? { registryServer: config.app.registry.server } : {}),
        cpu: consumer.cpu,
        memory: consumer.memory,
        budget: consumer.budget,
        ...(args.database ? { database: { host: args.database.host, databaseName: args.database.databaseName } } : {}),
        secrets: secretReferences,
        environment: consumer.environment,
        appInsightsConnectionString: args.appInsightsConnectionString,
        tags,
        // What Azure does not infer: the identity's database mapping, and the path to the vault inside the VNet.
        dependsOn: [...(mapping ? [mapping] : []), ...(args.vaultPrivateLink ?? []), ...(args.network?.links ?? [])],
      },
    );
  });
}
