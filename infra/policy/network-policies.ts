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

/** Zone-redundant: StandardV2 (zone-redundant by design) or placed in two zones or more. A Standard SKU without zones sits in one hidden zone. */
// Only a StandardV2 NAT gateway spans zones: a Standard one is zonal (one zone at most; Azure refuses more), and a
// StandardV2 gateway takes StandardV2 public IPs only (Microsoft: NAT gateway and availability zones).
const zoneRedundantEgress = (props: Record<string, unknown>) => obj(props.sku).name === "StandardV2";

/** Whether anything in the stack was built to survive a zone outage. */
function zoneRedundantStack(args: Parameters<StackValidationPolicy["validateStack"]>[0]): boolean {
  return (
    ofType(args, types.managedEnvironment).some((environment) => environment.props.zoneRedundant === true) ||
    ofType(args, types.postgresServer).some((server) => obj(server.props.highAvailability).mode === "ZoneRedundant") ||
    ofType(args, types.namespace).some((namespace) => obj(namespace.props.sku).name === "Premium" && namespace.props.zoneRedundant === true)
  );
}

export const egressZoneRedundant: StackValidationPolicy = {
  name: "egress-zone-redundant",
  description:
    "In a stack whose apps, database or namespace are zone-redundant, the consumers' NAT gateway and its public IPs are too (StandardV2): a Standard NAT gateway lives in one zone (one Azure does not show when none is named), and losing that zone cuts every consumer off api.stripe.com.",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    if (!zoneRedundantStack(args)) return;
    const addresses = ofType(args, types.publicIpAddress);
    for (const nat of ofType(args, types.natGateway)) {
      const name = String(nat.props.natGatewayName ?? nat.name);
      if (!zoneRedundantEgress(nat.props)) {
        report(`NAT gateway ${name}: ${String(obj(nat.props.sku).name ?? "Standard")} with ${list(nat.props.zones).length} zone(s) in a zone-redundant stack: egress hangs on one zone; use sku StandardV2 (zone-redundant)`, nat.urn);
      }
      for (const reference of list(nat.props.publicIpAddresses).map(obj)) {
        const address = addresses.find((candidate) => String(candidate.props.id).toLowerCase() === String(reference.id).toLowerCase());
        if (address && !zoneRedundantEgress(address.props)) {
          report(`public IP ${String(address.props.publicIpAddressName ?? address.name)} of NAT gateway ${name}: not zone-redundant (sku ${String(obj(address.props.sku).name)}, ${list(address.props.zones).length} zone(s)): use StandardV2 (a StandardV2 NAT gateway requires it)`, address.urn);
        }
      }
    }
  },
};
