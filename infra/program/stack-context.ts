// What every section of a stack shares: the validated config, where its resources go and the tags they carry.
import { MAINTENANCE_TAG, MAINTENANCE_TAG_VALUE } from "../specs/index.js";
import type { StackConfig } from "../config/index.js";

export interface StackContext {
  config: StackConfig;
  resourceGroupName: string;
  location: string;
  tags: Record<string, string>;
}

/** A locked data resource's tags: in a maintenance window they say its lock is lifted (the policies read it). */
export function maintenanceTags(config: StackConfig, tags: Record<string, string>): Record<string, string> {
  return config.production && config.maintenance ? { ...tags, [MAINTENANCE_TAG]: MAINTENANCE_TAG_VALUE } : tags;
}
