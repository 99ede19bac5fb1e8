// Day two designed, not discovered (issue 31 item 4): only data is locked (the guard database's server and the
// vault), so a queue's or a producer's or operator's change deletes nothing under a lock; what still does (a
// consumer's vault grant, the DBA's Entra administrator) is named by the plan before `pulumi up`, with a procedure
// whose every step plans with no lock conflict under Pulumi mocks.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { planExitCode } from "../../infra/plan/index.js";
import { exportedResources } from "../../infra/plan/deployed-resources.js";
import { dayTwoPlan } from "../../infra/plan/lock-plan.js";
import { deployedOf, planStack, type Plan } from "../../infra/plan/run-plan.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
type StackFile = { config: Record<string, unknown> };
let scratch: string;
let deployedFile: string;
let deployed: StackFile;
/** The deployed stack as planned, and the same inside a maintenance window (its locks lifted). */
let deployedPlan: Plan;
let liftedPlan: Plan;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "chargeguard-day-two-"));
  deployedFile = path.join(root, "Pulumi.prod.yaml");
  deployed = parse(await readFile(deployedFile, "utf8")) as StackFile;
  deployedPlan = await planStack({ stack: "prod", configFile: deployedFile });
  liftedPlan = await planStack({ stack: "prod", configFile: await variant("lift", () => {}, true) });
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** The prod stack file with `edit` applied (and the maintenance window set as asked), written to the scratch dir. */
async function variant(name: string, edit: (config: Record<string, unknown>) => void, maintenance = false): Promise<string> {
  const file = structuredClone(deployed);
  edit(file.config);
  if (maintenance) file.config["chargeguard:maintenance"] = true;
  const target = path.join(scratch, `${name}${maintenance ? "-maintenance" : ""}.yaml`);
  await writeFile(target, stringify(file));
  return target;
}

/** The change from one plan to the next, as `chargeguard plan --baseline` computes it. */
const between = (before: Plan, after: Plan) => dayTwoPlan("prod", "baseline", deployedOf(before), deployedOf(after));
const mandatory = (p: Plan) => p.report.violations.filter((v) => v.level === "mandatory");
type Config = Record<string, unknown>;
const queues = (config: Config) => config["chargeguard:queues"] as Record<string, unknown>[];
const app = (config: Config) => config["chargeguard:app"] as { consumers: Record<string, unknown>[] };

const changes: Record<string, (config: Config) => void> = {
  "remove a queue": (config) => {
    config["chargeguard:queues"] = queues(config).filter((q) => q.name !== "invoice-settlement");
    app(config).consumers = app(config).consumers.filter((c) => c.queue !== "invoice-settlement");
  },
  "remove a consumer": (config) => {
    app(config).consumers = app(config).consumers.filter((c) => c.queue !== "invoice-settlement");
  },
  "rotate the producer": (config) => {
    for (const q of queues(config)) q.producerPrincipalId = "00000000-0000-0000-0000-000000000022";
  },
  "rotate the operators": (config) => {
    (queues(config)[0] as Config).operatorPrincipalIds = ["00000000-0000-0000-0000-000000000044"];
  },
  "rotate the DBA": (config) => {
    (config["chargeguard:database"] as Config).administrators = [{ objectId: "00000000-0000-0000-0000-000000000055", principalName: "billing-dba-2026", principalType: "Group" }];
  },
};

describe("the locks of a production stack", () => {
  it("guard data only: the server and the vault, not the namespace", async () => {
    const prod = await planStack({ stack: "prod", cwd: root });
    const locks = prod.mocked.filter((r) => r.type === "azure-native:authorization:ManagementLockByScope").map((r) => String(r.inputs.scope).split("/").slice(-2).join("/"));
    expect(locks.sort()).toEqual(["flexibleServers/psql-billing-prod", "vaults/kv-billing-prod-cg"]);
    expect(mandatory(prod)).toEqual([]);
  });
});

describe.each(Object.entries(changes))("day two: %s", (change, edit) => {
  let changed: Plan;
  let changedInWindow: Plan;
  beforeAll(async () => {
    changed = await planStack({ stack: "prod", configFile: await variant(change.replaceAll(" ", "-"), edit) });
    changedInWindow = await planStack({ stack: "prod", configFile: await variant(change.replaceAll(" ", "-"), edit, true) });
  });

  it("is planned against the deployed stack, and the plan names each delete a lock refuses", () => {
    const dayTwo = between(deployedPlan, changed);
    expect(dayTwo.deletes.length).toBeGreaterThan(0);
    const refused = dayTwo.deletes.filter((d) => d.lockedBy.length > 0);
    const expected: Record<string, string[]> = {
      // The consumer's vault grant is an extension resource on the locked vault.
      "remove a queue": ["RoleAssignment id-invoice-settlement-consumer-vault-secret-stripe-api-key kv-billing-prod-cg"],
      "remove a consumer": ["RoleAssignment id-invoice-settlement-consumer-vault-secret-stripe-api-key kv-billing-prod-cg"],
      "rotate the producer": [],
      "rotate the operators": [],
      // The server's Entra administrator is its child.
      "rotate the DBA": ["AdministratorsMicrosoftEntra guard-db-entra-billing-dba psql-billing-prod"],
    };
    expect(refused.map((d) => `${d.type} ${d.resource} ${d.lockedBy.join(",")}`)).toEqual(expected[change]);
    expect(dayTwo.lockConflicts).toBe(refused.length);
    if (refused.length > 0) expect(dayTwo.procedure.join("\n")).toMatch(/chargeguard:maintenance true[\s\S]*--target[\s\S]*pulumi up[\s\S]*chargeguard:maintenance false/);
    if (change === "remove a queue") expect(dayTwo.deletes.find((d) => d.type === "Queue")).toMatchObject({ resource: "invoice-settlement", protect: true, lockedBy: [] });
  });

  it("gets through with the documented procedure: every step plans with no lock conflict and no mandatory violation", () => {
    // Lifting the locks alone (pulumi up --target on them) deletes the locks and nothing else.
    expect(between(deployedPlan, liftedPlan).deletes.map((d) => d.type)).toEqual(["ManagementLockByScope", "ManagementLockByScope"]);
    expect(liftedPlan.report.violations.map((v) => v.policy)).toEqual(["maintenance-window-open", "maintenance-window-open"]);
    // The change, inside the window, against the stack whose locks are gone.
    expect(between(liftedPlan, changedInWindow).lockConflicts).toBe(0);
    expect(mandatory(changedInWindow)).toEqual([]);
    // The window closes: the locks come back and nothing is deleted.
    expect(between(changedInWindow, changed)).toMatchObject({ deletes: [], lockConflicts: 0 });
    expect(changed.report.violations).toEqual([]);
  });
});

describe("chargeguard plan --baseline", () => {
  it("plans the change against the previous stack file: the conflict, exit 1, and the procedure in its text", async () => {
    const { formatPlan } = await import("../../infra/plan/format-plan.js");
    const rotated = await planStack({ stack: "prod", configFile: await variant("rotate-the-DBA", changes["rotate the DBA"] as (c: Config) => void), baseline: deployedFile });
    expect(rotated.report.dayTwo).toMatchObject({ baseline: "Pulumi.prod.yaml", lockConflicts: 1 });
    expect(planExitCode(rotated.report)).toBe(1);
    const text = formatPlan(rotated);
    expect(text).toContain("Day two against Pulumi.prod.yaml: 1 delete(s), 1 refused by a delete lock.");
    expect(text).toContain("AdministratorsMicrosoftEntra guard-db-entra-billing-dba: removed from the stack: REFUSED by the delete lock on psql-billing-prod (ScopeLocked).");
    expect(text).toContain("1. Open a maintenance window, keeping your change in the file: pulumi config set chargeguard:maintenance true --stack prod.");
  });
});

describe("a deployed queue's immutable settings (issue 31 item 6)", () => {
  it("a change of requiresDuplicateDetection or requiresSession is named as a replacement that loses messages, and refused", () => {
    const after = deployedOf(deployedPlan).map((r) =>
      r.type === "azure-native:servicebus:Queue" && r.name === "usage-billing" ? { ...r, inputs: { ...r.inputs, requiresDuplicateDetection: false, requiresSession: true } } : r,
    );
    const dayTwo = dayTwoPlan("prod", "baseline", deployedOf(deployedPlan), after);
    expect(dayTwo.deletes).toEqual([
      { resource: "usage-billing", type: "Queue", why: "replaced: requiresDuplicateDetection, requiresSession cannot change in place", lockedBy: [], protect: true, retained: false },
    ]);
    expect(dayTwo.queueReplacements).toBe(1);
    expect(planExitCode({ ...deployedPlan.report, dayTwo })).toBe(1);
    expect(dayTwo.procedure[0]).toMatch(/^Queue usage-billing would be replaced .* create a queue under a new name/);
    expect(between(deployedPlan, deployedPlan)).toMatchObject({ deletes: [], queueReplacements: 0 });
  });
});

describe("a `pulumi stack export` as the baseline", () => {
  it("reads the deployed resources, their protect and URNs, and finds the same conflict", async () => {
    const prod = await planStack({ stack: "prod", cwd: root });
    const exported = {
      version: 3,
      deployment: {
        resources: [
          { urn: "urn:pulumi:prod::chargeguard::pulumi:pulumi:Stack::chargeguard-prod", custom: false, type: "pulumi:pulumi:Stack" },
          ...prod.mocked
            .filter((r) => r.custom)
            .map((r) => ({ urn: `urn:pulumi:prod::chargeguard::${r.type}::${r.name}`, custom: true, type: r.type, id: r.id, inputs: r.state, protect: prod.protectedNames.has(r.name) })),
        ],
      },
    };
    const resources = exportedResources(exported);
    expect(resources).toHaveLength(prod.mocked.filter((r) => r.custom).length);
    const rotated = await planStack({ stack: "prod", configFile: await variant("rotate-the-DBA", changes["rotate the DBA"] as (c: Config) => void) });
    const dayTwo = dayTwoPlan("prod", "export.json", resources, rotated.mocked.filter((r) => r.custom).map((r) => ({ type: r.type, name: r.name, id: r.id, inputs: r.state, protect: false })));
    expect(dayTwo.deletes.filter((d) => d.lockedBy.length > 0).map((d) => d.resource)).toEqual(["guard-db-entra-billing-dba"]);
    expect(() => exportedResources({ resources: [] })).toThrow("not a `pulumi stack export`: no deployment.resources");
  });
});
