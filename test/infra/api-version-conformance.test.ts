// Every resource both stacks render, checked against the API version azure-native sends it at: each property must be
// one its `<Resource>Args` declares and each enum-valued one a value that version's enums list (issue 43 item 2). The
// metadata is the installed provider SDK's own (test/infra/support/api-metadata.ts), so an upgrade of the provider
// re-checks the stacks against the versions it then sends.
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { planStack, type Plan } from "../../infra/plan/run-plan.js";
import { ApiMetadata, SDK_METADATA_DEFECTS } from "./support/api-metadata.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const plans: Record<string, Plan> = {};
let metadata: ApiMetadata;

beforeAll(async () => {
  for (const stack of ["dev", "prod"]) plans[stack] = await planStack({ stack, cwd: root });
  metadata = new ApiMetadata(Object.values(plans).flatMap((plan) => plan.report.resources.map((r) => r.type)));
}, 120_000);

const problemsOf = (plan: Plan) => plan.report.resources.flatMap((r) => metadata.check(r.type, r.name, r.inputs));

describe("rendered resources against the API version they are sent at", () => {
  it.each(["dev", "prod"])("%s: every property and enum value is defined at its resource's API version", (stack) => {
    const plan = plans[stack]!;
    expect(plan.report.resources.length).toBeGreaterThan(40);
    expect(problemsOf(plan)).toEqual([]);
  });

  it("names the API version of each type from the SDK (the NAT gateway and public IP at Microsoft.Network 2024-05-01)", () => {
    expect(metadata.apiVersion("azure-native:network:NatGateway")).toBe("2024-05-01");
    expect(metadata.apiVersion("azure-native:network:PublicIPAddress")).toBe("2024-05-01");
    const unversioned = plans.prod!.report.resources.filter((r) => metadata.apiVersion(r.type) === undefined).map((r) => r.type);
    expect(unversioned).toEqual([]);
  });

  it("refuses the StandardV2 egress prod sent before issue 43, a misspelt property and a nested one", () => {
    const nat = plans.prod!.report.resources.find((r) => r.type === "azure-native:network:NatGateway")!;
    const ip = plans.prod!.report.resources.find((r) => r.type === "azure-native:network:PublicIPAddress")!;
    expect(metadata.check(nat.type, nat.name, { ...nat.inputs, sku: { name: "StandardV2" } })).toEqual([
      {
        resource: nat.name,
        type: nat.type,
        apiVersion: "2024-05-01",
        path: "sku.name",
        problem: '"StandardV2" is not in network.NatGatewaySkuName ("Standard")',
      },
    ]);
    expect(metadata.check(ip.type, ip.name, { ...ip.inputs, sku: { name: "StandardV2", tier: "Regional" } }).map((p) => p.problem)).toEqual([
      '"StandardV2" is not in network.PublicIPAddressSkuName ("Standard", "Basic")',
    ]);
    const app = plans.prod!.report.resources.find((r) => r.type === "azure-native:app:ContainerApp")!;
    const template = app.inputs.template as Record<string, unknown>;
    const broken = { ...app.inputs, minReplica: 2, template: { ...template, scale: { ...(template.scale as object), minReplicaCount: 2 } } };
    expect(metadata.check(app.type, app.name, broken).map((p) => `${p.path}: ${p.problem}`).sort()).toEqual([
      "minReplica: not a property of ContainerAppArgs at this API version",
      "template.scale.minReplicaCount: not a property of ScaleArgs at this API version",
    ]);
  });

  it("each SDK metadata defect it works around is still there (an upgrade that fixes one fails here until it goes)", () => {
    for (const defect of SDK_METADATA_DEFECTS) {
      const listed = metadata.enumValues(defect.enumName);
      expect(listed.length, defect.enumName).toBeGreaterThan(0);
      expect(defect.values.filter((v) => listed.includes(v)), defect.enumName).toEqual([]);
    }
  });

  it("refuses what the rule's own enum does not list, past the defect's values", () => {
    const rule = plans.prod!.report.resources.find((r) => r.type === "azure-native:monitor:ScheduledQueryRule")!;
    const criteria = rule.inputs.criteria as { allOf: Record<string, unknown>[] };
    const broken = { ...rule.inputs, criteria: { allOf: [{ ...criteria.allOf[0], operator: "Above" }] } };
    expect(metadata.check(rule.type, rule.name, broken).map((p) => p.path)).toEqual(["criteria.allOf[0].operator"]);
  });
});
