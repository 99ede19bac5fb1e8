// What every section of a stack shares: the validated config, where its resources go and the tags they carry.
import type { StackConfig } from "../stack-config.js";

export interface StackContext {
  config: StackConfig;
  resourceGroupName: string;
  location: string;
  tags: Record<string, string>;
}
