// Zone redundancy that holds: an app in a zone-redundant Container Apps environment keeps at least two replicas, so
// losing a zone leaves one billing (Microsoft: Reliability in Azure Container Apps; three is ideal). Plain policy
// objects; only type imports from @pulumi/policy.
import type { StackValidationPolicy } from "@pulumi/policy";
import { ZONE_REDUNDANT_MIN_REPLICAS } from "../../tuning/index.js";
import { obj, ofType } from "./policy-helpers.js";
import { types } from "./resource-types.js";

export const zoneRedundantReplicas: StackValidationPolicy = {
  name: "zone-redundant-replicas",
  description: `A consumer app in a zone-redundant environment keeps at least ${ZONE_REDUNDANT_MIN_REPLICAS} replicas: with one, zone redundancy has nothing to spread and losing its zone stops the queue's billing until a replica is rescheduled.`,
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    const redundant = ofType(args, types.managedEnvironment).filter((environment) => environment.props.zoneRedundant === true);
    for (const app of ofType(args, types.containerApp)) {
      const environmentId = String(app.props.managedEnvironmentId ?? app.props.environmentId).toLowerCase();
      if (!redundant.some((environment) => String(environment.props.id).toLowerCase() === environmentId)) continue;
      const min = obj(obj(app.props.template).scale).minReplicas;
      if (typeof min !== "number" || min < ZONE_REDUNDANT_MIN_REPLICAS) {
        report(
          `app ${String(app.props.containerAppName ?? app.name)}: template.scale.minReplicas ${String(min)} in zone-redundant environment: keep at least ${ZONE_REDUNDANT_MIN_REPLICAS} (3 ideal), or losing a zone stops its queue's billing`,
          app.urn,
        );
      }
    }
  },
};
