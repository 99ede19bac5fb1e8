// Issue 32: importing the runtime must not load the heavy SDKs; each loads when a code path first needs it
// (runtime/sdk/). Checked on the built entry points (what a consumer imports, after `npm run build`, as `npm test`
// does first): statically (no static import reaches them) and in a fresh node process (not loaded after the import,
// loaded once a guard opens PostgreSQL, a DLQ tool connects or a Stripe client is made). The speed itself is
// bench:import's.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { packagesReached } from "../support/static-imports.js";

const root = path.resolve(import.meta.dirname, "../..");
const entries = ["runtime/index.js", "runtime/guard/index.js", "runtime/operator/index.js", "runtime/flows/index.js"].map((entry) => path.join(root, "dist", entry));
const lazy = ["@azure/service-bus", "@azure/identity", "pg", "stripe"];

/**
 * Runs in a child: the packages loaded after importing the entries, after a guard tried a closed PostgreSQL port,
 * after a DLQ peek tried a closed Service Bus port and after a Stripe client was made (no request). Loaded means in
 * the CommonJS module cache (pg, @azure/service-bus and the runtime's stripe are CommonJS) or through the ESM loader
 * (a module-load hook: `import Stripe from "stripe"` loads stripe's ESM build, which the cache never sees), each
 * reported apart.
 */
const probe = `
import { createRequire, register } from "node:module";
import { MessageChannel, receiveMessageOnPort } from "node:worker_threads";
const require = createRequire(import.meta.url);
const { port1, port2 } = new MessageChannel();
const hooks = "let port; export function initialize(data) { port = data.port; } export async function load(url, context, next) { port.postMessage(url); return next(url, context); }";
register("data:text/javascript," + encodeURIComponent(hooks), { data: { port: port2 }, transferList: [port2] });
const esm = [];
const names = (files) => [...new Set(files.flatMap((file) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(file)?.[1] ?? []))].sort();
const packages = () => {
  for (let message = receiveMessageOnPort(port1); message; message = receiveMessageOnPort(port1)) esm.push(message.message);
  return { cjs: names(Object.keys(require.cache)), esm: names(esm) };
};
const [runtime, , operator, flows] = await Promise.all(${JSON.stringify(entries)}.map((entry) => import(entry)));
const atImport = packages();
const guard = await runtime.Guard.open({ databaseUrl: "postgres://nobody@127.0.0.1:1/none?sslmode=disable" }).then(() => "opened", (error) => error.code ?? error.message);
const afterGuard = packages();
const dlq = await operator.peekDeadLetters({ connectionString: "Endpoint=sb://127.0.0.1:1/;SharedAccessKeyName=k;SharedAccessKey=k;UseDevelopmentEmulator=true", queue: "q", max: 1 })
  .then(() => "peeked", (error) => error.code ?? error.name);
const afterDlq = packages();
const client = flows.createStripeClient({ apiKey: "rk_test_lazy", apiBase: "http://127.0.0.1:1", timeoutMs: 1000, maxNetworkRetries: 0 });
const made = typeof client.paymentIntents.create;
console.log(JSON.stringify({ atImport, guard, afterGuard, dlq, afterDlq, made, afterStripe: packages() }));
`;

type Loaded = { cjs: string[]; esm: string[] };
const all = (loaded: Loaded) => [...loaded.cjs, ...loaded.esm];

describe("the heavy SDKs load on first use, not with the runtime (built entry points)", () => {
  it("the runtime is built (npm run build), so the checks below look at what ships", () => {
    expect(entries.filter((entry) => !existsSync(entry))).toEqual([]);
  });

  it("no static import of the runtime's entry points reaches @azure/service-bus, @azure/identity, pg or stripe", () => {
    const reached = packagesReached(entries);
    expect(lazy.filter((name) => reached.has(name))).toEqual([]);
    expect(reached.has("zod")).toBe(true); // the scan does follow the entry points' real imports
  });

  it("importing the runtime loads none of them; a guard on PostgreSQL loads pg, a DLQ peek the Service Bus SDK, a Stripe client stripe", () => {
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: root, encoding: "utf8", timeout: 60_000 });
    const seen = JSON.parse(output.trim().split("\n").at(-1)!) as Record<"atImport" | "afterGuard" | "afterDlq" | "afterStripe", Loaded> & { guard: string; dlq: string; made: string };
    expect(seen.atImport.esm).toContain("zod"); // the hook does see the ESM packages the import loads
    expect(lazy.filter((name) => all(seen.atImport).includes(name))).toEqual([]);
    expect(seen.guard).toBe("ECONNREFUSED"); // it tried the closed port, through pg
    expect(seen.afterGuard.cjs).toContain("pg");
    expect(all(seen.afterGuard)).not.toContain("@azure/service-bus");
    expect(seen.dlq).not.toBe("peeked");
    expect(seen.afterDlq.cjs).toContain("@azure/service-bus");
    expect(all(seen.afterDlq)).not.toContain("stripe");
    expect(seen.made).toBe("function");
    // The runtime's one copy of the SDK: the CommonJS build, required when the first client is made.
    expect(seen.afterStripe.cjs).toContain("stripe");
    expect(seen.afterStripe.esm).not.toContain("stripe");
  });

  it("a missing stripe is a ConfigurationError naming the package when a client is made, not a bare resolution error", () => {
    // The loader and what it imports, built, in a directory with no node_modules above it.
    const dir = mkdtempSync(path.join(tmpdir(), "cg-no-stripe-"));
    try {
      for (const file of ["runtime/core/errors.js", "runtime/sdk/load-once.js", "runtime/sdk/load-stripe.js", "errors/index.js"]) {
        cpSync(path.join(root, "dist", file), path.join(dir, file));
      }
      writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
      const missing = `const { loadStripe } = await import(${JSON.stringify(path.join(dir, "runtime/sdk/load-stripe.js"))});
try { loadStripe(); console.log("loaded"); } catch (error) { console.log(JSON.stringify({ name: error.name, message: error.message })); }`;
      const output = execFileSync(process.execPath, ["--input-type=module", "-e", missing], { cwd: dir, encoding: "utf8", timeout: 60_000, env: { ...process.env, NODE_PATH: "" } });
      expect(JSON.parse(output.trim())).toEqual({ name: "ConfigurationError", message: expect.stringMatching(/^calling Stripe needs stripe, which is not installed: .*npm install stripe/) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
