// Changes Azure cannot make in place (issue 43 item 5): `plan --baseline` names each of the five, says what Azure would
// do, and refuses with exit 3 unless --accept-replacement; and the create-only properties named in
// infra/plan/create-only.ts agree with what the provider SDK marks `replaceOnChanges` for the stacks' types.
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { formatPlan } from "../../infra/plan/format-plan.js";
import { planExitCode, PLAN_EXIT_CANNOT_CHANGE_IN_PLACE } from "../../infra/plan/index.js";
import { planStack } from "../../infra/plan/run-plan.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
type Config = Record<string, Record<string, unknown> & unknown>;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "chargeguard-create-only-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function variant(stack: string, name: string, edit: (config: Config) => void): Promise<string> {
  const file = parse(await readFile(path.join(root, `Pulumi.${stack}.yaml`), "utf8")) as { config: Config };
  edit(file.config);
  const target = path.join(scratch, `${stack}-${name}.yaml`);
  await writeFile(target, stringify(file));
  return target;
}

const section = (config: Config, key: string) => config[`chargeguard:${key}`] as Record<string, unknown>;
const cases: [string, string, (config: Config) => void, RegExp][] = [
  ["prod", "vault retention", (c) => void (section(c, "vault").softDeleteRetentionInDays = 30), /Vault secrets: properties\.softDeleteRetentionInDays 90 -> 30/],
  ["prod", "geo backup", (c) => void (section(c, "database").geoRedundantBackup = false), /Server .*: backup\.geoRedundantBackup "Enabled" -> "Disabled"/],
  ["prod", "location", (c) => void (c["azure-native:location"] = "northeurope" as never), /location the stack: location "westeurope" -> "northeurope" on \d+ resource\(s\)/],
  ["dev", "premium", (c) => void (section(c, "namespace").sku = "Premium"), /Namespace .*: sku\.name "Standard" -> "Premium"/],
  ["prod", "address space", (c) => void (section(c, "network").addressSpace = "10.50.0.0/16"), /VirtualNetwork .*: addressSpace\.addressPrefixes \["10\.40\.0\.0\/16"\] -> \["10\.50\.0\.0\/16"\]/],
];

describe("plan --baseline and changes Azure cannot make in place", () => {
  it.each(cases)("%s: %s is named with what Azure would do, refused with exit 3, and goes through with --accept-replacement", async (stack, name, edit, named) => {
    const baseline = path.join(root, `Pulumi.${stack}.yaml`);
    const configFile = await variant(stack, name.replace(/\W+/g, "-"), edit);
    const plan = await planStack({ stack, configFile, baseline });
    const refusals = plan.report.dayTwo!.cannotChangeInPlace;
    expect(refusals.length).toBeGreaterThan(0);
    const text = formatPlan(plan);
    expect(text).toMatch(named);
    expect(text).toContain("REFUSED without --accept-replacement (exit 3)");
    for (const r of refusals) expect(text).toContain(`Azure: ${r.azure}.`);
    expect(planExitCode(plan.report)).toBe(PLAN_EXIT_CANNOT_CHANGE_IN_PLACE);

    const accepted = await planStack({ stack, configFile, baseline, acceptReplacement: true });
    expect(formatPlan(accepted)).toContain("accepted with --accept-replacement");
    expect(planExitCode(accepted.report)).not.toBe(PLAN_EXIT_CANNOT_CHANGE_IN_PLACE);
  });

  it("an unchanged stack refuses nothing", async () => {
    const same = await planStack({ stack: "prod", baseline: path.join(root, "Pulumi.prod.yaml"), cwd: root });
    expect(same.report.dayTwo!.cannotChangeInPlace).toEqual([]);
    expect(planExitCode(same.report)).toBe(0);
  });

  it("names every property the provider SDK marks replaceOnChanges for the stacks' resource types (none in azure-native 3.28)", async () => {
    const sdk = path.dirname(createRequire(import.meta.url).resolve("@pulumi/azure-native/package.json"));
    const plan = await planStack({ stack: "prod", cwd: root });
    const marked = [...new Set(plan.report.resources.map((r) => r.type))].flatMap((type) => {
      const [, service, resource] = type.split(":");
      const source = readFileSync(path.join(sdk, service!, `${resource![0]!.toLowerCase()}${resource!.slice(1)}.js`), "utf8");
      const list = /replaceOnChanges:\s*\[([^\]]*)\]/.exec(source)?.[1];
      return list ? [{ type, properties: list }] : [];
    });
    // When the SDK starts marking them, the plan must take the marks from it: this fails and says which.
    expect(marked).toEqual([]);
  });
});
