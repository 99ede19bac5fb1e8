// A queue consumer's probes must mean something: without a startup probe a replica counts as started before it has
// reached its queue, database and vault; without readiness it stays in rotation while it drains; without liveness a
// stuck receive loop is never restarted. All three ask the port the app's HEALTH_PORT names (the generated consumer
// answers there). Plain policy objects; only type imports from @pulumi/policy.
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { forType, list, obj } from "./policy-helpers.js";
import { types } from "./resource-types.js";

const REQUIRED = ["Startup", "Readiness", "Liveness"] as const;

export const consumerProbesPolicy: ResourceValidationPolicy = {
  name: "consumer-probes",
  description: "Every consumer container has startup, readiness and liveness probes (HTTP, on the port its HEALTH_PORT names).",
  enforcementLevel: "mandatory",
  validateResource: forType(types.containerApp, (props, args, report) => {
    const app = String(props.containerAppName ?? args.name);
    for (const container of list(obj(props.template).containers).map(obj)) {
      const healthPort = list(container.env).map(obj).find((entry) => entry.name === "HEALTH_PORT")?.value;
      const probes = list(container.probes).map(obj);
      for (const type of REQUIRED) {
        const probe = probes.find((candidate) => candidate.type === type);
        const port = obj(probe?.httpGet).port;
        if (!probe) report(`app ${app}: container ${String(container.name)} has no ${type} probe`);
        else if (healthPort === undefined || String(port) !== String(healthPort)) {
          report(`app ${app}: container ${String(container.name)}'s ${type} probe asks port ${String(port)}, not HEALTH_PORT (${String(healthPort)}) where the consumer answers`);
        }
      }
    }
  }),
};
