// Issue 32: importing the runtime must not load the heavy SDKs; each loads when a code path first needs it
// (runtime/sdk/). Checked on the built entry points (what a consumer imports, after `npm run build`, as `npm test`
// does first): statically (no static import reaches them) and in a fresh node process (not in the module cache after
// the import, in it once a guard opens PostgreSQL or a DLQ tool connects). The speed itself is bench:import's.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { packagesReached } from "../support/static-imports.js";

const root = path.resolve(import.meta.dirname, "../..");
const entries = ["runtime/index.js", "runtime/guard/index.js", "runtime/operator/index.js"].map((entry) => path.join(root, "dist", entry));
const lazy = ["@azure/service-bus", "@azure/identity", "pg"];

/**
 * Runs in a child: the CommonJS packages in the module cache (pg and @azure/service-bus are CommonJS) after importing
 * the entries, after a guard tried a closed PostgreSQL port and after a DLQ peek tried a closed Service Bus port.
 */
const probe = `
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const packages = () => [...new Set(Object.keys(require.cache).flatMap((file) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(file)?.[1] ?? []))].sort();
const [runtime, , operator] = await Promise.all(${JSON.stringify(entries)}.map((entry) => import(entry)));
const atImport = packages();
const guard = await runtime.Guard.open({ databaseUrl: "postgres://nobody@127.0.0.1:1/none?sslmode=disable" }).then(() => "opened", (error) => error.code ?? error.message);
const afterGuard = packages();
const dlq = await operator.peekDeadLetters({ connectionString: "Endpoint=sb://127.0.0.1:1/;SharedAccessKeyName=k;SharedAccessKey=k;UseDevelopmentEmulator=true", queue: "q", max: 1 })
  .then(() => "peeked", (error) => error.code ?? error.name);
console.log(JSON.stringify({ atImport, guard, afterGuard, dlq, afterDlq: packages() }));
`;

describe("the heavy SDKs load on first use, not with the runtime (built entry points)", () => {
  it("the runtime is built (npm run build), so the checks below look at what ships", () => {
    expect(entries.filter((entry) => !existsSync(entry))).toEqual([]);
  });

  it("no static import of the runtime's entry points reaches @azure/service-bus, @azure/identity or pg", () => {
    const reached = packagesReached(entries);
    expect(lazy.filter((name) => reached.has(name))).toEqual([]);
    expect(reached.has("zod")).toBe(true); // the scan does follow the entry points' real imports
  });

  it("importing the runtime leaves pg and @azure/service-bus unloaded; a guard on PostgreSQL loads pg, a DLQ peek the Service Bus SDK", () => {
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: root, encoding: "utf8", timeout: 60_000 });
    const seen = JSON.parse(output.trim().split("\n").at(-1)!) as Record<"atImport" | "afterGuard" | "afterDlq", string[]> & { guard: string; dlq: string };
    expect(seen.atImport).not.toContain("pg");
    expect(seen.atImport).not.toContain("@azure/service-bus");
    expect(seen.guard).toBe("ECONNREFUSED"); // it tried the closed port, through pg
    expect(seen.afterGuard).toContain("pg");
    expect(seen.afterGuard).not.toContain("@azure/service-bus");
    expect(seen.dlq).not.toBe("peeked");
    expect(seen.afterDlq).toContain("@azure/service-bus");
  });
});
