// The files `pulumi up` and `pulumi preview --policy-pack infra/policy` load, checked the way Pulumi loads them
// (the Pulumi CLI itself cannot run here). Needs the build (npm test builds first).
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("the Pulumi project", () => {
  it("declares a nodejs program whose built entry has only a default export, a function (Pulumi's ESM contract)", async () => {
    const project = parse(readFileSync(join(root, "Pulumi.yaml"), "utf8")) as { name: string; runtime: { name: string }; main: string };
    expect(project.name).toBe("chargeguard");
    expect(project.runtime.name).toBe("nodejs");
    const main = join(root, project.main);
    expect(existsSync(main), `${main} (run npm run build)`).toBe(true);
    const entry = (await import(pathToFileURL(main).href)) as Record<string, unknown>;
    expect(Object.keys(entry)).toEqual(["default"]);
    expect(typeof entry.default).toBe("function");
  });

  it("keeps its stack files next to it with the project's config keys", () => {
    const service = ["chargeguard:app", "chargeguard:database", "chargeguard:vault"];
    const expected: Record<string, string[]> = {
      dev: [...service],
      prod: [...service, "chargeguard:network", "chargeguard:observability"],
    };
    for (const stack of ["dev", "prod"]) {
      const file = parse(readFileSync(join(root, `Pulumi.${stack}.yaml`), "utf8")) as { config: Record<string, unknown> };
      expect(Object.keys(file.config).sort(), stack).toEqual(
        ["azure-native:location", "chargeguard:alerts", "chargeguard:namespace", "chargeguard:queues", "chargeguard:resourceGroupName", ...(expected[stack] ?? [])].sort(),
      );
    }
  });
});

describe("the policy pack", () => {
  it("loads through require() of its directory, as Pulumi's policy runner does, and starts serving", async () => {
    const pack = join(root, "infra/policy");
    const manifest = JSON.parse(readFileSync(join(pack, "package.json"), "utf8")) as { main: string };
    expect(existsSync(resolve(pack, manifest.main)), "run npm run build").toBe(true);
    expect(parse(readFileSync(join(pack, "PulumiPolicy.yaml"), "utf8"))).toMatchObject({ runtime: { name: "nodejs" } });

    // A child process: the pack starts a gRPC server and would keep the test process alive. It prints its port.
    const child = spawn(process.execPath, ["-e", `require(${JSON.stringify(pack)})`], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const port = await new Promise<string>((resolvePort, reject) => {
      child.stdout.on("data", (chunk: Buffer) => resolvePort(chunk.toString().trim()));
      child.on("exit", (code) => reject(new Error(`the pack exited with ${code}: ${stderr}`)));
    }).finally(() => child.kill());
    expect(port).toMatch(/^\d+$/);
  });
});
