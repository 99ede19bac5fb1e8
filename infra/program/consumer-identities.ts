// The consumers' identities and their grants (queue, registry, Application Insights). They come in the bootstrap phase
// too, so the grants have propagated before an app uses them. Key Vault Secrets User comes in phase two, on each secret
// its app references (found by phase two's lookup), never on the vault, which also holds the audit's key.
import type * as pulumi from "@pulumi/pulumi";
import type { BillingQueue } from "../components/billing-queue.js";
import type { BillingSecrets } from "../components/billing-secrets.js";
import { ConsumerIdentity } from "../components/consumer-identity.js";
import { presentSecret } from "./secret-lookup.js";
import type { StackContext } from "./stack-context.js";

/** The vault secrets a consumer's app references (infra/program/consumer-apps.ts): all its identity may read. */
export function consumerSecretNames(config: StackContext["config"]): string[] {
  const secrets = config.vault?.secrets;
  if (!secrets) return [];
  return [secrets.stripeApiKey, ...(secrets.keybrakeApiKey !== undefined ? [secrets.keybrakeApiKey] : [])];
}

/** One identity per configured consumer, in the config's order. */
export function buildConsumerIdentities(
  { config, resourceGroupName: rg, location, tags }: StackContext,
  queues: BillingQueue[],
  secrets: BillingSecrets | undefined,
  appInsightsId: pulumi.Input<string>,
): ConsumerIdentity[] {
  const consumers = config.app?.consumers ?? [];
  return consumers.map((consumer) => {
    const queue = queues.find((q) => q.queueName === consumer.queue) as BillingQueue;
    return new ConsumerIdentity(consumer.identityName, {
      resourceGroupName: rg,
      location,
      identityName: consumer.identityName,
      queueId: queue.queue.id,
      ...(config.app?.registry ? { registryId: config.app.registry.resourceId } : {}),
      ...(secrets && !config.bootstrap
        ? { vaultSecretIds: Object.fromEntries(consumerSecretNames(config).map((name) => [name, presentSecret(config, secrets, name).id])) }
        : {}),
      appInsightsId,
      tags,
    });
  });
}
