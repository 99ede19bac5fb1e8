// Day two runbook (issue 43 item 6): restore the guard database to a point in time, walked through `plan --baseline`
// against the deployed prod stack. A point-in-time restore makes a new server; the stack adopts it and keeps the
// original (its lock, its backups): the plan refuses a change that would delete a server and never offers the
// maintenance window for it; `database.retain` first makes Pulumi forget rather than delete the original, then the
// change creates the restored server (PointInTimeRestore from the original) in the original's DNS zone.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { formatPlan, planExitCode } from "../../infra/plan/index.js";
import { planStack, type Plan } from "../../infra/plan/run-plan.js";
import { ApiMetadata } from "./support/api-metadata.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const deployed = path.join(root, "Pulumi.prod.yaml");
const POINT_IN_TIME = "2026-12-07T09:55:00Z";
let scratch: string;

/** The prod stack file with the database section edited, written to the scratch dir. */
async function withDatabase(name: string, edit: (database: Record<string, unknown>) => void): Promise<string> {
  const file = parse(await readFile(deployed, "utf8")) as { config: Record<string, Record<string, unknown>> };
  edit(file.config["chargeguard:database"]!);
  const target = path.join(scratch, `${name}.yaml`);
  await writeFile(target, stringify(file));
  return target;
}
const restored = (database: Record<string, unknown>) => {
  database.serverName = "psql-billing-prod-r1";
  database.restoreFrom = { serverName: "psql-billing-prod", pointInTime: POINT_IN_TIME };
  database.privateDnsZoneName = "psql-billing-prod.private.postgres.database.azure.com";
};
const server = (plan: Plan) => plan.mocked.find((r) => r.custom && r.type === "azure-native:dbforpostgresql:Server");
const mandatory = (plan: Plan) => plan.report.violations.filter((v) => v.level === "mandatory");

let naive: Plan;
let keep: Plan;
let adopt: Plan;
let settle: Plan;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "chargeguard-restore-"));
  naive = await planStack({ stack: "prod", configFile: await withDatabase("naive", restored), baseline: deployed });
  const keepFile = await withDatabase("keep", (db) => (db.retain = true));
  keep = await planStack({ stack: "prod", configFile: keepFile, baseline: deployed });
  const adoptFile = await withDatabase("adopt", (db) => {
    db.retain = true;
    restored(db);
  });
  adopt = await planStack({ stack: "prod", configFile: adoptFile, baseline: keepFile });
  settle = await planStack({ stack: "prod", configFile: await withDatabase("settle", restored), baseline: adoptFile });
}, 180_000);
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("day two: restore the guard database to a point in time", () => {
  it("refuses moving the stack to the restored server in one step (exit 1): the original would go with its backups, and no window is offered", () => {
    const dayTwo = naive.report.dayTwo!;
    expect(dayTwo.serverDeletes).toBe(1);
    expect(dayTwo.deletes.find((d) => d.type === "Server")).toMatchObject({ resource: "guard-db", retained: false, protect: true, lockedBy: ["psql-billing-prod"] });
    expect(planExitCode(naive.report)).toBe(1);
    expect(dayTwo.procedure).toEqual([expect.stringMatching(/^Server guard-db would be deleted with its backups .*never lift its lock for it.*chargeguard:database\.retain true/)]);
    expect(dayTwo.procedure.join("\n")).not.toContain("chargeguard:maintenance true");
    expect(formatPlan(naive)).toContain("1 database server(s) REFUSED (deleted with their backups)");
  });

  it("step 1, retain: changes nothing in Azure; Pulumi will forget the server and everything under it instead of deleting them", () => {
    expect(keep.report.dayTwo).toMatchObject({ deletes: [], lockConflicts: 0, serverDeletes: 0, cannotChangeInPlace: [] });
    expect(planExitCode(keep.report)).toBe(0);
    expect(mandatory(keep)).toEqual([]);
    const underServer = keep.mocked.filter((r) => r.custom && r.name.startsWith("guard-db")).map((r) => r.name);
    expect(underServer).toEqual(expect.arrayContaining(["guard-db", "guard-db-db", "guard-db-delete-lock", "guard-db-diagnostics", "guard-db-entra-billing-dba"]));
    expect(underServer.filter((name) => !keep.retainedNames.has(name))).toEqual([]);
    // Not a resting state: the plan says so on every run until it is set back.
    expect(keep.report.violations.filter((v) => v.policy === "database-retained").map((v) => v.message)).toEqual([
      expect.stringMatching(/^psql-billing-prod: retained for a restore .*set database\.retain false and pulumi up$/),
    ]);
  });

  it("step 2, adopt: the restored server from the original's backups at the point in time, in its DNS zone; the original only forgotten", () => {
    const dayTwo = adopt.report.dayTwo!;
    expect(dayTwo).toMatchObject({ lockConflicts: 0, serverDeletes: 0, cannotChangeInPlace: [] });
    expect(dayTwo.deletes.find((d) => d.type === "Server")).toMatchObject({ resource: "guard-db", retained: true, protect: false, lockedBy: [] });
    // Deleted for real: only the original's alerts (the restored server's own come with it), none under a lock.
    expect(dayTwo.deletes.filter((d) => !d.retained).map((d) => `${d.type} ${d.resource}`)).toEqual(
      ["alive", "storage-percent", "cpu-percent", "memory-percent", "connections-failed", "txid-wraparound"].map((alert) => `MetricAlert service-alerts-psql-billing-prod-${alert}`),
    );
    expect(adopt.mocked.filter((r) => r.name.startsWith("service-alerts-psql-billing-prod-r1-"))).toHaveLength(6);
    expect(dayTwo.deletes.map((d) => d.type)).not.toContain("PrivateZone");
    expect(planExitCode(adopt.report)).toBe(0);
    expect(mandatory(adopt)).toEqual([]);
    expect(server(adopt)?.inputs).toMatchObject({
      serverName: "psql-billing-prod-r1",
      createMode: "PointInTimeRestore",
      pointInTimeUTC: POINT_IN_TIME,
      sourceServerResourceId: expect.stringMatching(/\/resourceGroups\/rg-billing-prod\/providers\/Microsoft\.DBforPostgreSQL\/flexibleServers\/psql-billing-prod$/),
    });
    // The restore's create mode and inputs are what PostgreSQL's API version the provider sends defines (its SDK's own types).
    const rendered = adopt.report.resources.find((r) => r.type === "azure-native:dbforpostgresql:Server")!;
    expect(new ApiMetadata([rendered.type]).check(rendered.type, rendered.name, rendered.inputs)).toEqual([]);
    const app = adopt.mocked.find((r) => r.type === "azure-native:app:ContainerApp");
    expect(JSON.stringify(app?.inputs)).toContain("psql-billing-prod-r1");
  });

  it("step 3, settle: retain off, the restored server protected and locked again, nothing deleted", () => {
    expect(settle.report.dayTwo).toMatchObject({ deletes: [], lockConflicts: 0, serverDeletes: 0 });
    expect(planExitCode(settle.report)).toBe(0);
    expect(settle.protectedNames.has("guard-db")).toBe(true);
    expect(settle.retainedNames.size).toBe(0);
    expect(settle.report.violations.filter((v) => v.policy === "database-retained")).toEqual([]);
    const lock = settle.mocked.find((r) => r.name === "guard-db-delete-lock");
    expect(String(lock?.inputs.scope)).toMatch(/\/flexibleServers\/psql-billing-prod-r1$/);
  });
});
