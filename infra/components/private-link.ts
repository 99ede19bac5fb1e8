// A private endpoint for one Azure resource (the namespace: group "namespace"; the vault: group "vault") in the
// private-endpoints subnet, registered in the matching private DNS zone so its public name resolves privately.
import * as pulumi from "@pulumi/pulumi";
import { PrivateDnsZoneGroup, PrivateEndpoint } from "@pulumi/azure-native/network/index.js";

export interface PrivateLinkArgs {
  resourceGroupName: pulumi.Input<string>;
  location?: pulumi.Input<string>;
  endpointName: string;
  /** The resource reached privately. */
  targetId: pulumi.Input<string>;
  /** "namespace" (Service Bus, Premium only) or "vault" (Key Vault). */
  groupId: "namespace" | "vault";
  subnetId: pulumi.Input<string>;
  privateDnsZoneId: pulumi.Input<string>;
  tags?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

export class PrivateLink extends pulumi.ComponentResource {
  readonly endpoint: PrivateEndpoint;
  readonly zoneGroup: PrivateDnsZoneGroup;

  constructor(name: string, args: PrivateLinkArgs, opts?: pulumi.ComponentResourceOptions) {
    super("chargeguard:infra:PrivateLink", name, {}, opts);
    this.endpoint = new PrivateEndpoint(
      name,
      {
        resourceGroupName: args.resourceGroupName,
        location: args.location,
        privateEndpointName: args.endpointName,
        subnet: { id: args.subnetId },
        privateLinkServiceConnections: [{ name: args.endpointName, privateLinkServiceId: args.targetId, groupIds: [args.groupId] }],
        tags: args.tags,
      },
      { parent: this },
    );
    this.zoneGroup = new PrivateDnsZoneGroup(
      `${name}-dns`,
      {
        resourceGroupName: args.resourceGroupName,
        privateEndpointName: this.endpoint.name,
        privateDnsZoneGroupName: "default",
        privateDnsZoneConfigs: [{ name: args.groupId, privateDnsZoneId: args.privateDnsZoneId }],
      },
      { parent: this },
    );
    this.registerOutputs({ endpointId: this.endpoint.id });
  }
}
