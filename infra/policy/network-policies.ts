// A subnet without default outbound access has no way to the internet unless something gives it one: the consumers
// would never reach api.stripe.com, their registry or Entra ID. The Container Apps subnet must therefore carry a NAT
// gateway of this stack (its static public IP is the address Stripe users allow-list) or a route table (a firewall's
// route, the documented alternative). Plain policy objects; only type imports from @pulumi/policy.
import type { StackValidationPolicy } from "@pulumi/policy";
import { list, obj, ofType } from "./policy-helpers.js";
import { types } from "./resource-types.js";

const APPS_DELEGATION = "Microsoft.App/environments";

export const appsEgressPath: StackValidationPolicy = {
  name: "consumer-egress-path",
  description:
    "A Container Apps subnet with default outbound access off has an explicit way out: a NAT gateway of the stack (static public IP), or a route table to a firewall.",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    const natIds = new Set(ofType(args, types.natGateway).map((nat) => String(nat.props.id).toLowerCase()));
    for (const subnet of ofType(args, types.subnet)) {
      const forApps = list(subnet.props.delegations).some((delegation) => obj(delegation).serviceName === APPS_DELEGATION);
      if (!forApps || subnet.props.defaultOutboundAccess !== false) continue;
      const nat = String(obj(subnet.props.natGateway).id ?? "").toLowerCase();
      const routed = typeof obj(subnet.props.routeTable).id === "string";
      if (!natIds.has(nat) && !routed) {
        report(
          `subnet ${String(subnet.props.subnetName ?? subnet.name)}: default outbound access is off and it has no NAT gateway (natGateway.id) or route table: the consumers cannot reach api.stripe.com or their registry`,
          subnet.urn,
        );
      }
    }
  },
};
