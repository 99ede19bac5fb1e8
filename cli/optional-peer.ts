// Commands whose code needs an optional peer dependency (ARCHITECTURE.md, "Packages and who installs them"): `plan`
// needs Pulumi, which a consumer or an operator host does not install. A missing one is a setup problem with a
// one-line fix, so it is a usage error (exit 2) naming what to install, not Node's stack trace.
import { UsageError } from "./exit-codes.js";

/** The Pulumi packages `chargeguard plan` and the infra components load. */
export const pulumiPeers = ["@pulumi/pulumi", "@pulumi/azure-native", "@pulumi/policy"] as const;

/** Runs `load` (a dynamic import); a missing package among `peers` becomes a UsageError naming them all. */
export async function withPeers<T>(command: string, peers: readonly string[], load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    const missing = peers.find((peer) => code === "ERR_MODULE_NOT_FOUND" && String(message).includes(`'${peer}'`));
    if (missing === undefined) throw error;
    throw new UsageError(
      `${command} needs ${missing}, which is not installed (an optional peer dependency of chargeguard): install ${peers.join(", ")} ` +
        `where you run it, e.g. npm install --save-dev ${peers.join(" ")}`,
    );
  }
}
