// What Azure does not infer, on the plan's dependency graph: the prod plan's apps wait for their grants, their
// database mapping and the vault's private endpoint, its private server for its DNS zone's VNet link; the policy
// fails a plan without them. The bootstrap phase builds everything an app needs, and no app.
import { readFile, rm, writeFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackArgs, urnOf, type PolicyTarget } from "../../infra/plan/policy-args.js";
import { planTargets } from "./support/plan-targets.js";
import { planStack, type Plan } from "../../infra/plan/run-plan.js";
import { creationOrder } from "../../infra/policy/ordering-policies.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
let plan: Plan;
let scratch: string;
beforeAll(async () => {
  plan = await planStack({ stack: "prod", cwd: root });
  scratch = await mkdtemp(path.join(tmpdir(), "chargeguard-bootstrap-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const targets = (without: (name: string, dependency: string) => boolean = () => false): PolicyTarget[] =>
  planTargets(plan, (name, dependency) => !without(name, dependency));

async function violations(subjects: PolicyTarget[]): Promise<string[]> {
  const messages: string[] = [];
  await creationOrder.validateStack(stackArgs(subjects), (message) => messages.push(message));
  return messages;
}

describe("creation order", () => {
  it("holds in the prod plan", async () => {
    expect(await violations(targets())).toEqual([]);
    const app = plan.report.resources.find((r) => r.name === "usage-billing-consumer");
    expect(app?.dependsOn).toEqual(
      expect.arrayContaining(["id-usage-billing-consumer-vault-secret-stripe-api-key", "id-usage-billing-consumer-scaler-queue-owner", "secrets-private"]),
    );
    expect(plan.report.resources.find((r) => r.name === "guard-db")?.dependsOn).toEqual(["network-postgres-link"]);
  });

  it("waits for the identity's database mapping where the identity administers the server (dev)", async () => {
    const dev = await planStack({ stack: "dev", cwd: root });
    expect(dev.report.resources.find((r) => r.name === "usage-billing-consumer")?.dependsOn).toContain("guard-db-entra-id-usage-billing-consumer");
    const subjects = dev.mocked
      .filter((r) => r.custom)
      .map((r) => ({ type: r.type, name: r.name, urn: urnOf("dev", "chargeguard", r.type, r.name), inputs: r.state, outputs: r.state, dependsOn: [] as string[] }));
    expect(await violations(subjects)).toContain(
      "app usage-billing-consumer: does not wait for its identity's database mapping id-usage-billing-consumer (dependsOn): Azure would create it first",
    );
  });

  it("fails a plan whose app would be created before its grants or the vault's endpoint, or whose server before its zone link", async () => {
    const cut = (name: string, dependency: string) =>
      (name === "usage-billing-consumer" && ["id-usage-billing-consumer-vault-secret-stripe-api-key", "secrets-private"].includes(dependency)) ||
      (name === "guard-db" && dependency === "network-postgres-link");
    expect(await violations(targets(cut))).toEqual([
      expect.stringMatching(/^app usage-billing-consumer: does not wait for role assignment [0-9a-f-]{36} \(dependsOn\)/),
      "app usage-billing-consumer: does not wait for the vault's private endpoint pe-kv-billing-prod-cg (dependsOn): Azure would create it first",
      "server psql-billing-prod: does not wait for the VNet link of its DNS zone psql-billing-prod.private.postgres.database.azure.com (dependsOn): Azure fails to create it before the zone resolves",
    ]);
  });
});

describe("the bootstrap phase (chargeguard:bootstrap: true)", () => {
  it("builds the vault, identities, grants and database, and no app", async () => {
    const configFile = path.join(scratch, "Pulumi.prod.yaml");
    const yaml = await readFile(path.join(root, "Pulumi.prod.yaml"), "utf8");
    await writeFile(configFile, yaml.replace("config:\n", "config:\n  chargeguard:bootstrap: true\n"));
    const bootstrap = await planStack({ stack: "prod", configFile });
    const types = new Set(bootstrap.report.resources.map((r) => r.type.split(":").pop()));
    expect(types.has("ContainerApp")).toBe(false);
    expect(types.has("ManagedEnvironment")).toBe(false);
    for (const needed of ["Vault", "UserAssignedIdentity", "RoleAssignment", "AdministratorsMicrosoftEntra", "PrivateEndpoint", "Server"]) expect(types.has(needed), needed).toBe(true);
    // Every grant of the consumers' identities is already there but those on a secret, which phase two grants once the
    // operator has put it in (KEDA's identity comes with its app in phase two too).
    const grants = (p: Plan) => p.report.resources.filter((r) => r.type.endsWith(":RoleAssignment") && !r.name.includes("-scaler-")).map((r) => r.name).sort();
    expect(grants(bootstrap)).toEqual(grants(plan).filter((name) => !name.includes("-vault-secret-")));
    expect(grants(plan).filter((name) => name.includes("-vault-secret-"))).toEqual([
      "audit-identity-vault-secret-audit-key",
      "id-invoice-settlement-consumer-vault-secret-stripe-api-key",
      "id-usage-billing-consumer-vault-secret-stripe-api-key",
    ]);
    expect(bootstrap.report.violations.filter((v) => v.level === "mandatory")).toEqual([]);

    // The plan says where the Stripe key stands: phase one creates its vault and readers, grants no one the secret (not
    // there yet), sets no value, no app reads it yet.
    const [secret] = bootstrap.report.secrets;
    expect(bootstrap.report.secrets).toHaveLength(1);
    expect(Object.keys(secret ?? {})).toEqual(["name", "vault", "env", "phase", "thisRun", "present", "readers", "referencedBy", "operator"]);
    expect(secret).toMatchObject({
      name: "stripe-api-key",
      vault: "kv-billing-prod-cg",
      env: "STRIPE_API_KEY",
      phase: "bootstrap",
      present: "unknown offline",
      referencedBy: [],
      readers: [
        { identity: "id-usage-billing-consumer", app: "usage-billing-consumer", granted: false },
        { identity: "id-invoice-settlement-consumer", app: "invoice-settlement-consumer", granted: false },
      ],
    });
    expect(secret?.thisRun).toContain("phase one of two: creates vault kv-billing-prod-cg and its private endpoint");
    expect(secret?.operator).toMatch(/from inside the VNet .*az keyvault secret set --vault-name kv-billing-prod-cg --name stripe-api-key --file .*then set chargeguard:bootstrap false/);
  });

  it("phase two: the apps reference the secret the run looks up first, each through a granted identity", () => {
    expect(plan.report.secrets).toEqual([
      expect.objectContaining({
        name: "stripe-api-key",
        phase: "apps",
        referencedBy: ["usage-billing-consumer", "invoice-settlement-consumer"],
        readers: [expect.objectContaining({ granted: true }), expect.objectContaining({ granted: true })],
        thisRun: expect.stringContaining("looks stripe-api-key up through Azure Resource Manager (its metadata, never its value) before creating any grant or app"),
      }),
    ]);
  });
});
