// Day two's point-in-time restore (infra/README.md): while `database.retain` is on, Pulumi forgets the guard
// database's server and everything under it instead of deleting them, and `protect` is off. That is the restore's
// first step, not a resting state: left on, a later change would leave an old Entra administrator on the server (the
// DBA rotation deletes nothing) and nothing but the lock guards the server. Plain policy objects.
import type { StackValidationPolicy } from "@pulumi/policy";
import { RETAINED_TAG } from "../specs/index.js";
import { obj, ofType } from "./policy-helpers.js";
import { types } from "./resource-types.js";

export const databaseRetained: StackValidationPolicy = {
  name: "database-retained",
  description: "Says when the guard database's server is retained for a point-in-time restore (database.retain): set it false once the stack is on the restored server.",
  enforcementLevel: "advisory",
  validateStack: (args, report) => {
    for (const server of ofType(args, types.postgresServer).filter((candidate) => obj(candidate.props.tags)[RETAINED_TAG] !== undefined)) {
      report(
        `${String(server.props.serverName ?? server.name)}: retained for a restore (Pulumi forgets rather than deletes it, protect off): once the stack is on the restored server, set database.retain false and pulumi up`,
        server.urn,
      );
    }
  },
};
