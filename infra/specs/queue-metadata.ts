// What a billing queue records about itself in its Azure `userMetadata` (a free-text property, at most 1024
// characters): its latency budget and the consumer settings computed from it. The policy pack reads it back to
// check that the queue's lock still covers the budget; operators see it in the portal. Pure: no Pulumi import.
import type { ConsumerSettings, LatencyBudget } from "../../tuning/index.js";

export interface BillingQueueMetadata {
  budget: LatencyBudget;
  consumer: ConsumerSettings;
}

const MARKER = "chargeguard";
export const USER_METADATA_MAX_CHARS = 1024;

export function encodeQueueMetadata(metadata: BillingQueueMetadata): string {
  const text = JSON.stringify({ [MARKER]: metadata });
  if (text.length > USER_METADATA_MAX_CHARS) {
    throw new Error(`queue metadata is ${text.length} characters; Azure allows ${USER_METADATA_MAX_CHARS}`);
  }
  return text;
}

/** The metadata of a chargeguard billing queue; undefined for any other queue (no or foreign userMetadata). */
export function decodeQueueMetadata(userMetadata: unknown): BillingQueueMetadata | undefined {
  if (typeof userMetadata !== "string") return undefined;
  try {
    const parsed = JSON.parse(userMetadata) as Record<string, unknown> | null;
    const metadata = parsed?.[MARKER] as Partial<BillingQueueMetadata> | undefined;
    if (!metadata || typeof metadata.budget?.stripe !== "object" || typeof metadata.consumer !== "object") {
      return undefined;
    }
    return metadata as BillingQueueMetadata;
  } catch {
    return undefined;
  }
}
