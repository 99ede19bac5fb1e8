// The production network: a VNet with three subnets (apps delegated to Container Apps, database delegated to
// PostgreSQL Flexible, one for private endpoints) and the private DNS zones that make the namespace, the vault and
// the database resolve to private addresses inside it. Subnets have no default outbound access, so the apps subnet
// gets its one way out: a NAT gateway with a static public IP (api.stripe.com, the registry, Entra), which is also the
// fixed address Stripe users put on allow-lists. Development has none of this: public and cheap.
import * as pulumi from "@pulumi/pulumi";
import { NatGateway, PublicIPAddress, Subnet, VirtualNetwork } from "@pulumi/azure-native/network/index.js";
import { PrivateZone, VirtualNetworkLink } from "@pulumi/azure-native/privatedns/index.js";
import { planSubnets } from "../config/index.js";

/** Azure's private-link zone names (public cloud). */
export const privateDnsZones = {
  serviceBus: "privatelink.servicebus.windows.net",
  vault: "privatelink.vaultcore.azure.net",
} as const;

/** PostgreSQL Flexible's private access needs its own zone ending in `.postgres.database.azure.com`. */
export const postgresDnsZone = (serverName: string) => `${serverName}.private.postgres.database.azure.com`;

export interface PrivateNetworkArgs {
  resourceGroupName: pulumi.Input<string>;
  location?: pulumi.Input<string>;
  vnetName: string;
  /** e.g. 10.40.0.0/16: carved by planSubnets. */
  addressSpace: string;
  /** The database server's name: its private DNS zone is named after it. */
  databaseServerName?: string;
  /** The database's zone when it is not named after the server: a server restored into the original's zone. */
  postgresDnsZoneName?: string;
  /**
   * The zone the egress lives in: a Standard NAT gateway (the SKU Microsoft.Network 2024-05-01, the version the provider
   * sends, defines, and the one Container Apps takes on an environment's subnet; StandardV2 is neither) is zonal, so
   * it and its Standard public IP are pinned to one named zone instead of one Azure picks and does not show. Default
   * "1". The trade-off, stated in infra/README.md: losing that zone cuts the consumers off api.stripe.com until it
   * returns; the breaker pauses intake and the backlog waits on the queue (nothing lost, nothing charged twice).
   */
  egressZone?: "1" | "2" | "3";
  tags?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

export class PrivateNetwork extends pulumi.ComponentResource {
  readonly vnet: VirtualNetwork;
  readonly appsSubnetId: pulumi.Output<string>;
  readonly privateEndpointsSubnetId: pulumi.Output<string>;
  readonly databaseSubnetId: pulumi.Output<string>;
  /** The consumers' egress address (the NAT gateway's static public IP): for Stripe's and partners' allow-lists. */
  readonly egressIp: pulumi.Output<string>;
  /** Zone ids by key: serviceBus, vault, postgres. */
  readonly zoneIds: Record<string, pulumi.Output<string>> = {};
  readonly links: VirtualNetworkLink[] = [];
  /** Each zone's VNet link by key (serviceBus, vault, postgres): what resolves the zone inside the VNet. */
  readonly linkByZone: Record<string, VirtualNetworkLink> = {};

  constructor(name: string, args: PrivateNetworkArgs, opts?: pulumi.ComponentResourceOptions) {
    super("chargeguard:infra:PrivateNetwork", name, {}, opts);
    const plan = planSubnets(args.addressSpace);
    this.vnet = new VirtualNetwork(
      name,
      {
        resourceGroupName: args.resourceGroupName,
        location: args.location,
        virtualNetworkName: args.vnetName,
        addressSpace: { addressPrefixes: [args.addressSpace] },
        tags: args.tags,
      },
      // Subnets are their own resources below; inline `subnets` here would fight them on every update.
      { parent: this, ignoreChanges: ["subnets"] },
    );
    const egress = this.egress(name, args);
    this.egressIp = egress.address.ipAddress.apply((address) => address ?? "(assigned at creation)");
    const subnets = this.subnets(name, args, plan, egress.nat.id);
    this.appsSubnetId = subnets.apps.id;
    this.privateEndpointsSubnetId = subnets.endpoints.id;
    this.databaseSubnetId = subnets.database.id;
    this.privateDnsZones(name, args);

    this.registerOutputs({
      vnetId: this.vnet.id,
      appsSubnetId: this.appsSubnetId,
      privateEndpointsSubnetId: this.privateEndpointsSubnetId,
      databaseSubnetId: this.databaseSubnetId,
      egressIp: this.egressIp,
      zoneIds: this.zoneIds,
    });
  }

  /** The consumers' one way out: a NAT gateway on a static public IP (the address Stripe's allow-lists see). */
  private egress(name: string, args: PrivateNetworkArgs): { nat: NatGateway; address: PublicIPAddress } {
    const zones = { zones: [args.egressZone ?? "1"] };
    const egressAddress = new PublicIPAddress(
      `${name}-egress-ip`,
      {
        resourceGroupName: args.resourceGroupName,
        location: args.location,
        publicIpAddressName: `${args.vnetName}-egress`,
        sku: { name: "Standard", tier: "Regional" },
        ...zones,
        publicIPAllocationMethod: "Static",
        publicIPAddressVersion: "IPv4",
        tags: args.tags,
      },
      { parent: this },
    );
    const nat = new NatGateway(
      `${name}-nat`,
      {
        resourceGroupName: args.resourceGroupName,
        location: args.location,
        natGatewayName: `${args.vnetName}-nat`,
        sku: { name: "Standard" },
        ...zones,
        publicIpAddresses: [{ id: egressAddress.id }],
        idleTimeoutInMinutes: 4,
        tags: args.tags,
      },
      { parent: this },
    );
    return { nat, address: egressAddress };
  }

  /** The apps', private endpoints' and database's subnets, created one after another (Azure updates one at a time). */
  private subnets(name: string, args: PrivateNetworkArgs, plan: ReturnType<typeof planSubnets>, egressGatewayId: pulumi.Input<string>) {
    const subnet = (key: string, addressPrefix: string, delegation?: string, dependsOn: pulumi.Resource[] = [], natGatewayId?: pulumi.Input<string>) =>
      new Subnet(
        `${name}-${key}`,
        {
          resourceGroupName: args.resourceGroupName,
          virtualNetworkName: this.vnet.name,
          subnetName: key,
          addressPrefix,
          ...(delegation ? { delegations: [{ name: delegation.replace(/\W/g, "-"), serviceName: delegation }] } : {}),
          defaultOutboundAccess: false,
          ...(natGatewayId !== undefined ? { natGateway: { id: natGatewayId } } : {}),
        },
        // Azure updates one subnet of a VNet at a time.
        { parent: this, dependsOn },
      );
    // Only the apps reach the internet (Stripe); endpoints and the database answer inside the VNet.
    const apps = subnet("apps", plan.apps, "Microsoft.App/environments", [], egressGatewayId);
    const endpoints = subnet("private-endpoints", plan.privateEndpoints, undefined, [apps]);
    const database = subnet("database", plan.database, "Microsoft.DBforPostgreSQL/flexibleServers", [endpoints]);
    return { apps, endpoints, database };
  }

  /** One private DNS zone per private endpoint kind (and the database server), each linked to the VNet. */
  private privateDnsZones(name: string, args: PrivateNetworkArgs): void {
    const zones: [string, string][] = [
      ["serviceBus", privateDnsZones.serviceBus],
      ["vault", privateDnsZones.vault],
      ...(args.databaseServerName ? ([["postgres", args.postgresDnsZoneName ?? postgresDnsZone(args.databaseServerName)]] as [string, string][]) : []),
    ];
    for (const [key, zoneName] of zones) {
      const zone = new PrivateZone(
        `${name}-${key}-zone`,
        { resourceGroupName: args.resourceGroupName, privateZoneName: zoneName, location: "global", tags: args.tags },
        { parent: this },
      );
      this.zoneIds[key] = zone.id;
      const link = new VirtualNetworkLink(
        `${name}-${key}-link`,
        {
          resourceGroupName: args.resourceGroupName,
          privateZoneName: zone.name,
          virtualNetworkLinkName: `${args.vnetName}-link`,
          location: "global",
          virtualNetwork: { id: this.vnet.id },
          registrationEnabled: false,
        },
        { parent: this },
      );
      this.links.push(link);
      this.linkByZone[key] = link;
    }
  }
}
