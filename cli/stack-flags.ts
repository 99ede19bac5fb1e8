// `--stack` and `--config-file` (plan, sandbox): one names Pulumi.<stack>.yaml, the other any file. Given together
// they must agree, or a prod file would be planned (and reported) as dev.
import { basename } from "node:path";
import { UsageError } from "./exit-codes.js";

export function checkStackFlags(stack: string | undefined, configFile: string | undefined): void {
  if (stack === undefined || configFile === undefined) return;
  const named = /^Pulumi\.(.+)\.ya?ml$/.exec(basename(configFile))?.[1];
  if (named !== stack) {
    throw new UsageError(
      `--stack ${stack} and --config-file ${configFile} conflict: ${named === undefined ? "the file is not named Pulumi.<stack>.yaml" : `the file is stack ${named}`}; give one of them`,
    );
  }
}
