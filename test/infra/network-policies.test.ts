// Egress: the prod plan's apps subnet (default outbound access off) leaves through a NAT gateway with a static public
// IP; the policy fails a plan whose apps subnet has no way out.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { stackArgs, urnOf, type PolicyTarget } from "../../infra/plan/policy-args.js";
import { planStack } from "../../infra/plan/run-plan.js";
import { appsEgressPath, egressZoneExplicit } from "../../infra/policy/network-policies.js";
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
    expect(ip?.inputs).toMatchObject({ publicIPAllocationMethod: "Static", sku: { name: "Standard" } });
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

describe("egress in one named zone, at a SKU its API version defines (issue 43 item 1)", () => {
  async function zoneViolations(subjects: PolicyTarget[]): Promise<string[]> {
    const messages: string[] = [];
    await egressZoneExplicit.validateStack(stackArgs(subjects), (message) => messages.push(message));
    return messages;
  }
  const egress = (subjects: PolicyTarget[]) =>
    subjects.filter((t) => t.type === "azure-native:network:NatGateway" || t.type === "azure-native:network:PublicIPAddress");

  it("prod's NAT gateway and its public IP are Standard in zone 1, not StandardV2 (undefined at 2024-05-01, refused on a Container Apps subnet)", async () => {
    const plan = await planStack({ stack: "prod", cwd: root });
    const subjects = planTargets(plan);
    const nat = subjects.find((s) => s.type === "azure-native:network:NatGateway")!;
    const ip = subjects.find((s) => s.type === "azure-native:network:PublicIPAddress")!;
    expect(nat.inputs).toMatchObject({ sku: { name: "Standard" }, zones: ["1"] });
    expect(ip.inputs).toMatchObject({ sku: { name: "Standard" }, zones: ["1"] });
    expect(await zoneViolations(subjects)).toEqual([]);
  });

  it("refuses the StandardV2 egress prod had, and a Standard gateway in no named zone or in three", async () => {
    const plan = await planStack({ stack: "prod", cwd: root });
    const subjects = planTargets(plan);
    for (const s of egress(subjects)) {
      (s.outputs.sku as { name: string }).name = "StandardV2";
      s.outputs.zones = ["1", "2", "3"];
    }
    expect(await zoneViolations(subjects)).toEqual([
      "NAT gateway vnet-billing-prod-nat: sku StandardV2: Container Apps does not take it on the environment's subnet and Microsoft.Network 2024-05-01 does not define it; use Standard in one named zone",
      "public IP vnet-billing-prod-egress of NAT gateway vnet-billing-prod-nat: sku StandardV2 in zone(s) [1, 2, 3]: use Standard in the gateway's zone [1, 2, 3]",
    ]);
    for (const s of egress(subjects)) {
      (s.outputs.sku as { name: string }).name = "Standard";
      delete s.outputs.zones;
    }
    expect(await zoneViolations(subjects)).toEqual([
      'NAT gateway vnet-billing-prod-nat: Standard with 0 zone(s): a Standard NAT gateway is zonal; name the one zone it lives in (zones: ["1"])',
    ]);
    for (const s of egress(subjects)) s.outputs.zones = ["1", "2", "3"];
    expect(await zoneViolations(subjects)).toEqual([
      'NAT gateway vnet-billing-prod-nat: Standard with 3 zone(s): a Standard NAT gateway is zonal; name the one zone it lives in (zones: ["1"])',
    ]);
    // A stack with nothing zone-redundant may leave the zone to Azure.
    const zonal = subjects.filter((s) => !["ManagedEnvironment", "Server", "Namespace"].some((t) => s.type.endsWith(`:${t}`)));
    expect(await zoneViolations(zonal)).toEqual([]);
  });
});
