// The consumers' identities and their grants (queue, registry, vault, Application Insights). They come in the bootstrap phase too, so the
// grants have propagated before an app uses them.
import type * as pulumi from "@pulumi/pulumi";
import type { BillingQueue } from "../components/billing-queue.js";
import type { BillingSecrets } from "../components/billing-secrets.js";
import { ConsumerIdentity } from "../components/consumer-identity.js";
import type { StackContext } from "./stack-context.js";

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
      ...(secrets ? { vaultId: secrets.vaultId } : {}),
      appInsightsId,
      tags,
    });
  });
}
