// ast-grep's own rule tests (tests/ast-grep/rule-tests/: snippets each rule id must and must not match), run with
// `ast-grep test`. They pin each ast-grep rule id, where the fixtures' test sees only the ESLint id it maps to: a
// meter event reported by the generic require-idempotency-key@python rule (with the wrong message) would pass there
// and fails here. Every shipped rule must have its test file.
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { astGrepBinary } from "../../src/scan/ast-grep-binary.js";

const plugin = fileURLToPath(new URL("../..", import.meta.url));
const config = path.join(plugin, "tests", "ast-grep", "sgconfig.yml");

function idsIn(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".yml"))
    .map((file) => /^id:\s*(\S+)/m.exec(readFileSync(path.join(directory, file), "utf8"))?.[1] ?? `(no id in ${file})`)
    .sort();
}

it("every shipped ast-grep rule has rule tests, and `ast-grep test` passes them all", async () => {
  const rules = idsIn(path.join(plugin, "ast-grep", "rules"));
  expect(idsIn(path.join(plugin, "tests", "ast-grep", "rule-tests"))).toEqual(rules);

  const run = promisify(execFile)(astGrepBinary(), ["test", "--config", config, "--skip-snapshot-tests", "--color", "never"], { cwd: plugin });
  const { stdout } = await run.catch((error: { stdout: string; stderr: string }) => {
    throw new Error(`ast-grep test failed:\n${error.stdout}\n${error.stderr}`);
  });
  expect(stdout).toContain(`test result: ok. ${rules.length} passed; 0 failed;`);
});
