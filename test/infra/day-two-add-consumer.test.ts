// Day two runbook (issue 43 item 6): add a consumer to a running production stack, walked through `plan --baseline`.
// The DBA gives the consumer's identity its database role with the identity's object id, so the identity comes one
// run before its app (the consumer's own `bootstrap: true`); an app arriving with its new identity is refused (exit
// 1) with that procedure. (In development the identity administers the server and Azure maps it: one run does.)
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { formatPlan, planExitCode } from "../../infra/plan/index.js";
import { planStack, type Plan } from "../../infra/plan/run-plan.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
type Config = Record<string, unknown>;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "chargeguard-add-consumer-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** The stack file with a refund-settlement queue and its consumer added (`bootstrap` as given), in the scratch dir. */
async function withNewConsumer(stack: "prod", name: string, consumer: Config): Promise<string> {
  const file = parse(await readFile(path.join(root, `Pulumi.${stack}.yaml`), "utf8")) as { config: Config };
  const queues = file.config["chargeguard:queues"] as Config[];
  queues.push({ ...structuredClone(queues[0]!), name: "refund-settlement" });
  (file.config["chargeguard:app"] as { consumers: Config[] }).consumers.push({
    queue: "refund-settlement",
    image: `crbilling${stack}.azurecr.io/refund-settlement-consumer:1.0.0`,
    maxConcurrentCalls: 1,
    maxConcurrentStripeCalls: 1,
    ...consumer,
  });
  const target = path.join(scratch, `${stack}-${name}.yaml`);
  await writeFile(target, stringify(file));
  return target;
}

const created = (plan: Plan, type: string) => plan.report.resources.filter((r) => r.type === `azure-native:${type}`).map((r) => r.name);

describe("day two: add a consumer to the running prod stack", () => {
  let direct: Plan;
  let phaseOne: Plan;
  let phaseTwo: Plan;
  let phaseOneFile: string;
  beforeAll(async () => {
    const deployed = path.join(root, "Pulumi.prod.yaml");
    direct = await planStack({ stack: "prod", configFile: await withNewConsumer("prod", "direct", {}), baseline: deployed });
    phaseOneFile = await withNewConsumer("prod", "phase-one", { bootstrap: true });
    phaseOne = await planStack({ stack: "prod", configFile: phaseOneFile, baseline: deployed });
    phaseTwo = await planStack({ stack: "prod", configFile: await withNewConsumer("prod", "phase-two", {}), baseline: phaseOneFile });
  }, 120_000);

  it("refuses the app in the run that creates its identity (exit 1), naming the two phases and the DBA's step", () => {
    expect(direct.report.dayTwo?.appsBeforeTheirRole).toEqual([{ app: "refund-settlement-consumer", identity: "id-refund-settlement-consumer" }]);
    expect(direct.report.dayTwo?.deletes).toEqual([]);
    expect(planExitCode(direct.report)).toBe(1);
    expect(formatPlan(direct)).toContain("1 app(s) REFUSED before their database role");
    expect(direct.report.dayTwo?.procedure).toEqual([expect.stringMatching(/^App refund-settlement-consumer would start before id-refund-settlement-consumer has a database role: set bootstrap: true .* the DBA runs the role statements .* then remove bootstrap/)]);
  });

  it("phase one: its identity with every grant (its Stripe key included), no app, nothing deleted; the plan prints the DBA's statements", () => {
    expect(phaseOne.report.dayTwo).toMatchObject({ deletes: [], lockConflicts: 0, appsBeforeTheirRole: [], cannotChangeInPlace: [] });
    expect(planExitCode(phaseOne.report)).toBe(0);
    expect(phaseOne.report.violations.filter((v) => v.level === "mandatory")).toEqual([]);
    expect(created(phaseOne, "app:ContainerApp").sort()).toEqual(["invoice-settlement-consumer", "usage-billing-consumer"]);
    expect(created(phaseOne, "managedidentity:UserAssignedIdentity")).toContain("id-refund-settlement-consumer");
    expect(created(phaseOne, "authorization:RoleAssignment").filter((name) => name.startsWith("id-refund-settlement-consumer-")).sort()).toEqual([
      "id-refund-settlement-consumer-acr-pull",
      "id-refund-settlement-consumer-queue-receiver",
      "id-refund-settlement-consumer-queue-sender",
      "id-refund-settlement-consumer-telemetry-publisher",
      "id-refund-settlement-consumer-vault-secret-stripe-api-key",
    ]);
    expect(formatPlan(phaseOne, { details: true })).toMatch(/id-refund-settlement-consumer: OID=\$\(az identity show -g rg-billing-prod -n id-refund-settlement-consumer/);
  });

  it("phase two, after the DBA's step: the app, nothing deleted, nothing refused", () => {
    expect(phaseTwo.report.dayTwo).toMatchObject({ deletes: [], lockConflicts: 0, appsBeforeTheirRole: [], cannotChangeInPlace: [] });
    expect(planExitCode(phaseTwo.report)).toBe(0);
    expect(created(phaseTwo, "app:ContainerApp")).toContain("refund-settlement-consumer");
    expect(phaseTwo.report.violations.filter((v) => v.level === "mandatory")).toEqual([]);
  });
});
