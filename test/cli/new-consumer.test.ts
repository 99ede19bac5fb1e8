// `chargeguard new consumer --stack`: the queue's budget comes from the stack config (the loader `chargeguard plan`
// uses) into src/queue-budget.json; without --stack the defaults, and how to take a stack's. The built bin, as users run it.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadStackConfig } from "../../infra/config/index.js";
import { DEFAULT_STRIPE_BUDGET } from "../../tuning/index.js";

const root = path.resolve(import.meta.dirname, "../..");
const cli = path.join(root, "dist/cli/index.js");
let scratch: string;

/** The budget's cases depend on the registry (--no-vendor): packing this checkout is the vendoring cases' own. */
function run(args: string[], cwd = root, vendoring = ["--no-vendor"]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, "new", "consumer", ...args, ...vendoring], { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

const budgetFile = async (project: string) => JSON.parse(await readFile(path.join(project, "src/queue-budget.json"), "utf8"));

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first (npm test does)`);
  scratch = await mkdtemp(path.join(tmpdir(), "chargeguard-new-consumer-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("chargeguard new consumer", () => {
  it("--stack takes the queue's budget from Pulumi.<stack>.yaml", async () => {
    const project = path.join(scratch, "from-stack");
    const { code, stdout } = await run([project, "--queue", "invoice-settlement", "--stack", "prod"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Tuning: queue invoice-settlement's budget from Pulumi.prod.yaml (stack prod), in src/queue-budget.json.");
    const prod = loadStackConfig({ stack: "prod", cwd: root });
    expect(await budgetFile(project)).toMatchObject({
      queue: "invoice-settlement",
      stack: "prod",
      budget: prod.queues.find((queue) => queue.name === "invoice-settlement")?.budget,
    });
  });

  it("takes the flow the stack tunes the queue for, and refuses another one by name, writing nothing", async () => {
    const invoicing = path.join(root, "test", "fixtures", "stacks", "Pulumi.invoicing.yaml");
    const project = path.join(scratch, "invoice-from-stack");
    const taken = await run([project, "--queue", "invoice-billing", "--config-file", invoicing]);
    expect(taken.code).toBe(0);
    expect(taken.stdout).toContain("invoice flow");
    expect(existsSync(path.join(project, "src", "flow.ts"))).toBe(true);
    expect((await budgetFile(project)).budget.concurrency).toMatchObject({ stripeCallsPerMessage: 23 });

    const refused = path.join(scratch, "charge-for-invoice-queue");
    const other = await run([refused, "--queue", "invoice-billing", "--config-file", invoicing, "--flow", "charge"]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain("--flow charge: stack invoicing tunes queue invoice-billing for the invoice flow");
    expect(existsSync(refused)).toBe(false);
  });

  it("--config-file reads any stack file of that shape", async () => {
    const project = path.join(scratch, "from-file");
    const { code } = await run([project, "--queue", "usage-billing", "--config-file", path.join(root, "Pulumi.dev.yaml")], scratch);
    expect(code).toBe(0);
    expect(await budgetFile(project)).toMatchObject({ stack: "dev", budget: { stripe: { timeoutMs: 30_000, maxNetworkRetries: 2 } } });
  });

  it("without --stack writes the default budget and says how to take a stack's", async () => {
    const project = path.join(scratch, "defaults");
    const { code, stdout } = await run([project, "--queue", "usage-billing"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Tuning: chargeguard's default Stripe budget .* --queue usage-billing --stack <stack>/);
    expect(await budgetFile(project)).toMatchObject({ stack: null, budget: { stripe: { ...DEFAULT_STRIPE_BUDGET } } });
  });

  it("from this checkout (never published) vendors by default and says so; --no-vendor warns that the registry lacks it", async () => {
    const project = path.join(scratch, "vendored");
    const vendored = await run([project], root, []);
    expect(vendored.code, vendored.stderr).toBe(0);
    expect(vendored.stdout).toContain(`Vendored: chargeguard and eslint-plugin-chargeguard packed from ${root} into vendor/ (chargeguard 0.1.0 is not on the npm registry yet)`);
    const manifest = JSON.parse(await readFile(path.join(project, "package.json"), "utf8"));
    expect(manifest.dependencies.chargeguard).toBe("file:vendor/chargeguard-0.1.0.tgz");
    expect(await readFile(path.join(project, "Dockerfile"), "utf8")).toContain("COPY vendor ./vendor");

    const registry = await run([path.join(scratch, "registry")]);
    expect(registry.stdout).toMatch(/chargeguard@\^0\.1\.0 from the npm registry \(--no-vendor\), which does not serve this version yet/);
    expect(existsSync(path.join(scratch, "registry", "vendor"))).toBe(false);

    const missing = await run([path.join(scratch, "bad-vendor")], root, ["--vendor", path.join(scratch, "nowhere")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^chargeguard new consumer: --vendor .*nowhere: no package\.json/);
  });

  it.each([
    { args: ["--queue", "usage-billing", "--stack", "staging"], error: /Pulumi\.staging\.yaml has 1 problem:\n {2}- file not found \(stack files here: Pulumi\.dev\.yaml, Pulumi\.prod\.yaml\)/ },
    { args: ["--queue", "refunds", "--stack", "dev"], error: /no queue "refunds" in stack dev \(its queues: usage-billing\): give one of them with --queue/ },
  ])("refuses $args with exit 2 and writes nothing", async ({ args, error }) => {
    const project = path.join(scratch, `refused-${args[1]}`);
    const { code, stderr } = await run([project, ...args]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^chargeguard new consumer: /);
    expect(stderr).toMatch(error);
    expect(existsSync(project)).toBe(false);
  });
});
