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

// The consumers' egress is a Standard NAT gateway: the SKU the NAT gateway and public IP API version the provider sends
// (Microsoft.Network 2024-05-01) defines, and the one Container Apps takes on an environment's subnet (its virtual
// network page: StandardV2 is not supported for integration). Standard is zonal: with no zone named Azure places it in
// one it does not show, so the zone is named, and the public IP sits in the same one.
const egressZones = (props: Record<string, unknown>) => list(props.zones).map(String);

/** Whether anything in the stack was built to survive a zone outage. */
function zoneRedundantStack(args: Parameters<StackValidationPolicy["validateStack"]>[0]): boolean {
  return (
    ofType(args, types.managedEnvironment).some((environment) => environment.props.zoneRedundant === true) ||
    ofType(args, types.postgresServer).some((server) => obj(server.props.highAvailability).mode === "ZoneRedundant") ||
    ofType(args, types.namespace).some((namespace) => obj(namespace.props.sku).name === "Premium" && namespace.props.zoneRedundant === true)
  );
}

export const egressZoneExplicit: StackValidationPolicy = {
  name: "egress-zone-explicit",
  description:
    "In a stack whose apps, database or namespace are zone-redundant, the consumers' NAT gateway is Standard (the SKU its API version defines and Container Apps takes on the environment's subnet) in one named zone, its public IPs Standard in the same zone: an unnamed zone is one Azure picks and does not show, so the one zone egress depends on is unknown to the operator.",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    if (!zoneRedundantStack(args)) return;
    const addresses = ofType(args, types.publicIpAddress);
    for (const nat of ofType(args, types.natGateway)) {
      const name = String(nat.props.natGatewayName ?? nat.name);
      const sku = String(obj(nat.props.sku).name ?? "Standard");
      const zones = egressZones(nat.props);
      if (sku !== "Standard") {
        report(`NAT gateway ${name}: sku ${sku}: Container Apps does not take it on the environment's subnet and Microsoft.Network 2024-05-01 does not define it; use Standard in one named zone`, nat.urn);
      } else if (zones.length !== 1) {
        report(`NAT gateway ${name}: Standard with ${zones.length} zone(s): a Standard NAT gateway is zonal; name the one zone it lives in (zones: ["1"])`, nat.urn);
      }
      for (const reference of list(nat.props.publicIpAddresses).map(obj)) {
        const address = addresses.find((candidate) => String(candidate.props.id).toLowerCase() === String(reference.id).toLowerCase());
        if (!address) continue;
        const ipSku = String(obj(address.props.sku).name);
        const ipZones = egressZones(address.props);
        if (ipSku !== "Standard" || ipZones.join() !== zones.join()) {
          report(`public IP ${String(address.props.publicIpAddressName ?? address.name)} of NAT gateway ${name}: sku ${ipSku} in zone(s) [${ipZones.join(", ")}]: use Standard in the gateway's zone [${zones.join(", ")}]`, address.urn);
        }
      }
    }
  },
};
