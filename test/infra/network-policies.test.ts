// Egress: the prod plan's apps subnet (default outbound access off) leaves through a NAT gateway with a static public
// IP; the policy fails a plan whose apps subnet has no way out.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { stackArgs, urnOf, type PolicyTarget } from "../../infra/plan/policy-args.js";
import { planStack } from "../../infra/plan/run-plan.js";
import { appsEgressPath, egressZoneRedundant } from "../../infra/policy/network-policies.js";
import { planTargets } from "./support/plan-targets.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

async function violations(subjects: PolicyTarget[]): Promise<string[]> {
  const messages: string[] = [];
  await appsEgressPath.validateStack(stackArgs(subjects), (message) => messages.push(message));
  return messages;
}

describe("consumer egress", () => {
  it("goes through a NAT gateway with a static IP in prod, and a subnet without a way out is refused", async () => {
    const plan = await planStack({ stack: "prod", cwd: root });
    const subjects = plan.mocked
      .filter((r) => r.custom)
      .map((r) => ({ type: r.type, name: r.name, urn: urnOf("prod", "chargeguard", r.type, r.name), inputs: r.state, outputs: r.state }));
    expect(await violations(subjects)).toEqual([]);
    const nat = subjects.find((s) => s.type === "azure-native:network:NatGateway");
    const ip = subjects.find((s) => s.type === "azure-native:network:PublicIPAddress");
    expect(ip?.inputs).toMatchObject({ publicIPAllocationMethod: "Static", sku: { name: "StandardV2" } });
    expect(nat?.inputs.publicIpAddresses).toEqual([{ id: ip?.inputs.id }]);
    const apps = subjects.find((s) => s.type === "azure-native:network:Subnet" && s.inputs.subnetName === "apps");
    expect(apps?.inputs).toMatchObject({ defaultOutboundAccess: false, natGateway: { id: nat?.inputs.id } });
    // Endpoints and the database stay without a way out.
    expect(subjects.filter((s) => s.type === "azure-native:network:Subnet" && s.inputs.natGateway !== undefined).map((s) => s.inputs.subnetName)).toEqual(["apps"]);

    const closed = subjects.map((s) => (s === apps ? { ...s, outputs: { ...s.outputs, natGateway: undefined } } : s));
    expect(await violations(closed)).toEqual([
      "subnet apps: default outbound access is off and it has no NAT gateway (natGateway.id) or route table: the consumers cannot reach api.stripe.com or their registry",
    ]);
  });
});

describe("zone-redundant egress (issue 31 item 5)", () => {
  async function zoneViolations(subjects: PolicyTarget[]): Promise<string[]> {
    const messages: string[] = [];
    await egressZoneRedundant.validateStack(stackArgs(subjects), (message) => messages.push(message));
    return messages;
  }

  it("prod's NAT gateway and its public IP are StandardV2 across three zones, like the environment, database and namespace", async () => {
    const plan = await planStack({ stack: "prod", cwd: root });
    const subjects = planTargets(plan);
    const nat = subjects.find((s) => s.type === "azure-native:network:NatGateway")!;
    const ip = subjects.find((s) => s.type === "azure-native:network:PublicIPAddress")!;
    expect(nat.inputs).toMatchObject({ sku: { name: "StandardV2" }, zones: ["1", "2", "3"] });
    expect(ip.inputs).toMatchObject({ sku: { name: "StandardV2" }, zones: ["1", "2", "3"] });
    expect(await zoneViolations(subjects)).toEqual([]);
  });

  it("refuses the zonal egress prod had: a Standard NAT gateway and IP without zones", async () => {
    const plan = await planStack({ stack: "prod", cwd: root });
    const subjects = planTargets(plan);
    for (const s of subjects.filter((t) => t.type === "azure-native:network:NatGateway" || t.type === "azure-native:network:PublicIPAddress")) {
      (s.outputs.sku as { name: string }).name = "Standard";
      delete s.outputs.zones;
    }
    expect(await zoneViolations(subjects)).toEqual([
      "NAT gateway vnet-billing-prod-nat: Standard with 0 zone(s) in a zone-redundant stack: egress hangs on one zone; use sku StandardV2 (zone-redundant)",
      "public IP vnet-billing-prod-egress of NAT gateway vnet-billing-prod-nat: not zone-redundant (sku Standard, 0 zone(s)): use StandardV2 (a StandardV2 NAT gateway requires it)",
    ]);
    // Zones on a Standard NAT gateway do not make it zone-redundant (Azure takes one zone at most on it).
    for (const s of subjects.filter((t) => t.type === "azure-native:network:NatGateway" || t.type === "azure-native:network:PublicIPAddress")) s.outputs.zones = ["1", "2", "3"];
    expect(await zoneViolations(subjects)).toEqual([
      "NAT gateway vnet-billing-prod-nat: Standard with 3 zone(s) in a zone-redundant stack: egress hangs on one zone; use sku StandardV2 (zone-redundant)",
      "public IP vnet-billing-prod-egress of NAT gateway vnet-billing-prod-nat: not zone-redundant (sku Standard, 3 zone(s)): use StandardV2 (a StandardV2 NAT gateway requires it)",
    ]);
    // A stack with nothing zone-redundant may keep a zonal gateway.
    const zonal = subjects.filter((s) => !["ManagedEnvironment", "Server", "Namespace"].some((t) => s.type.endsWith(`:${t}`)));
    expect(await zoneViolations(zonal)).toEqual([]);
  });
});
