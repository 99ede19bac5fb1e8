// `--telemetry azure-monitor|otlp|none`: each choice writes its own src/telemetry.ts and installs only what that file
// imports (one exporter's tree, the footprint goal), the OTLP exporters at the versions this checkout tests them with
// (test/templates/telemetry-otlp.test.ts) and the SDK at the one version they depend on; the default is unchanged.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScaffoldError, scaffoldConsumer, type TelemetryChoice } from "../../templates/index.js";
import { otlpPackages, otlpSdkVersion } from "../../templates/telemetry-choice.js";

const checkout = path.resolve(import.meta.dirname, "../..");
const cli = path.join(checkout, "dist/cli/index.js");
const templateRoot = path.join(checkout, "templates/files");
let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "chargeguard-telemetry-choice-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

type Manifest = { dependencies: Record<string, string>; devDependencies: Record<string, string> };
const json = <T>(file: string) => JSON.parse(readFileSync(file, "utf8")) as T;

async function generate(telemetry: TelemetryChoice | undefined, name: string) {
  const directory = path.join(scratch, name);
  await scaffoldConsumer({ directory, name, queue: "usage-billing", link: checkout, ...(telemetry === undefined ? {} : { telemetry }) });
  return {
    manifest: json<Manifest>(path.join(directory, "package.json")),
    telemetry: await readFile(path.join(directory, "src/telemetry.ts"), "utf8"),
    readme: await readFile(path.join(directory, "README.md"), "utf8"),
  };
}

/** The packages a generated src/telemetry.ts imports (static or dynamic), by name. */
const importedPackages = (source: string) => [...source.matchAll(/(?:from |import\()"(@[^"/]+\/[^"/]+|[^".][^"/]*)"/g)].map((match) => match[1] ?? "").sort();
const opentelemetry = (dependencies: Record<string, string>) => Object.keys(dependencies).filter((name) => /^@(opentelemetry|azure\/monitor)/.test(name)).sort();

describe("scaffoldConsumer --telemetry", () => {
  it("azure-monitor (the default): the template's own telemetry.ts and packages, as before", async () => {
    const byDefault = await generate(undefined, "default-telemetry");
    expect(byDefault.telemetry).toBe(readFileSync(path.join(templateRoot, "consumer/src/telemetry.ts"), "utf8"));
    const template = json<Manifest>(path.join(templateRoot, "consumer/package.json"));
    expect(byDefault.manifest.dependencies).toMatchObject(Object.fromEntries(opentelemetry(template.dependencies).map((name) => [name, template.dependencies[name]])));
    expect(byDefault.readme).toContain("| `APPLICATIONINSIGHTS_CONNECTION_STRING` |");
    const chosen = await generate("azure-monitor", "azure-telemetry");
    expect([chosen.telemetry, chosen.manifest.dependencies]).toEqual([byDefault.telemetry, byDefault.manifest.dependencies]);
  });

  it("otlp: OpenTelemetry's OTLP/HTTP exporters and one SDK version, no Azure Monitor exporter; every import installed", async () => {
    const otlp = await generate("otlp", "otlp-telemetry");
    expect(opentelemetry(otlp.manifest.dependencies)).toEqual([
      "@opentelemetry/api",
      ...Object.keys(otlpPackages),
      "@opentelemetry/resources",
      "@opentelemetry/sdk-metrics",
      "@opentelemetry/sdk-trace-node",
    ].sort());
    for (const name of ["@opentelemetry/resources", "@opentelemetry/sdk-metrics", "@opentelemetry/sdk-trace-node"]) expect(otlp.manifest.dependencies[name]).toBe(otlpSdkVersion);
    for (const name of importedPackages(otlp.telemetry).filter((name) => !name.startsWith("node:"))) expect(otlp.manifest.dependencies, name).toHaveProperty([name]);
    expect(otlp.telemetry).toContain('kind: "otlp"');
    expect(otlp.readme).toContain("| `OTEL_EXPORTER_OTLP_ENDPOINT` |");
    expect(otlp.readme).not.toMatch(/__[A-Z_]+__|APPLICATIONINSIGHTS_CONNECTION_STRING/);
  });

  it("none: no SDK or exporter at all, a telemetry.ts that imports nothing", async () => {
    const none = await generate("none", "no-telemetry");
    expect(opentelemetry(none.manifest.dependencies)).toEqual(["@opentelemetry/api"]);
    expect(importedPackages(none.telemetry)).toEqual([]);
    expect(none.readme).toContain("generated with `--telemetry none`");
  });

  it("pins the OTLP exporters as this checkout does (where the OTLP test runs them), each on the SDK version the project pins", () => {
    const root = json<Manifest>(path.join(checkout, "package.json"));
    for (const [name, version] of Object.entries(otlpPackages)) {
      expect(root.devDependencies[name], name).toBe(version);
      const installed = json<{ version: string; dependencies: Record<string, string> }>(path.join(checkout, "node_modules", name, "package.json"));
      expect(installed.version).toBe(version);
      const sdk = Object.entries(installed.dependencies).filter(([dependency]) => /^@opentelemetry\/(sdk-|core|resources)/.test(dependency));
      for (const [dependency, range] of sdk) expect(range, `${name} -> ${dependency}`).toBe(otlpSdkVersion);
    }
  });

  it("names an unknown choice with exit 2 from the CLI, writing nothing", async () => {
    await expect(scaffoldConsumer({ directory: path.join(scratch, "bogus"), name: "bogus", queue: "q", telemetry: "datadog" as TelemetryChoice })).rejects.toThrow(
      new ScaffoldError('--telemetry must be one of azure-monitor, otlp, none, got "datadog"'),
    );
    const run = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(process.execPath, [cli, "new", "consumer", path.join(scratch, "cli-bogus"), "--telemetry", "datadog"], { cwd: scratch, timeout: 60_000 }, (error, _stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stderr });
      });
    });
    expect(run).toEqual({ code: 2, stderr: 'chargeguard new consumer: --telemetry "datadog" is invalid; allowed: azure-monitor, otlp, none\n' });
    expect(existsSync(path.join(scratch, "cli-bogus"))).toBe(false);
  });
});
