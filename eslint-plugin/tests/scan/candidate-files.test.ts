// The scan's second run (the call sites of the project's wrappers, factories and key makers) reads only the files
// that name one of them: a large project pays for the few files that call its wrappers, not for a second pass over
// everything, and dependencies, builds and virtual environments are never read.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { candidateFiles, secondRunFiles } from "../../src/scan/candidate-files.js";
import type { AstGrepMatch } from "../../src/scan/finding.js";

let project: string;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
  writeFileSync(path.join(project, file), text);
}

beforeAll(() => {
  project = mkdtempSync(path.join(tmpdir(), "chargeguard-candidates-"));
  write("billing/vendor.py", "def charge_customer(key):\n    stripe.Charge.create(amount=1, idempotency_key=key)\n");
  write("billing/renewals.py", "from billing.vendor import charge_customer\ncharge_customer(str(uuid4()))\n");
  write("billing/reports.py", "def charge_customers_report():\n    return []\n");
  write("src/Payments.java", "class Payments { RequestOptions buildRequestOptions() { return RequestOptions.getDefault(); } }\n");
  write("README.md", "charge_customer and buildRequestOptions\n");
  write(".venv/lib/site.py", "charge_customer()\n");
  write("node_modules/pkg/x.py", "charge_customer()\n");
});

afterAll(() => rmSync(project, { recursive: true, force: true }));

it("lists the Python and Java files that name a money wrapper as a word, outside dependencies", () => {
  expect(candidateFiles(["."], project, ["charge_customer", "buildRequestOptions"])?.sort()).toEqual(["billing/renewals.py", "billing/vendor.py", "src/Payments.java"]);
});

it("lists nothing when no function is marked, and takes a file given by name", () => {
  expect(candidateFiles(["."], project, [])).toEqual([]);
  expect(candidateFiles(["billing/renewals.py"], project, ["charge_customer"])).toEqual(["billing/renewals.py"]);
});

it("runs the second pass over the files that charge and those that name a money wrapper, not every named factory", () => {
  const mark = (role: string, file: string, name = "") => ({ file, language: "Python", metadata: { role }, metaVariables: { single: { NAME: { text: name } } } }) as unknown as AstGrepMatch;
  const matches = [mark("money-wrapper", "billing/vendor.py", "charge_customer"), mark("charges", "billing/vendor.py"), mark("params-factory", "billing/reports.py", "charge_customers_report"), mark("charges", "src/Payments.java")];
  expect(secondRunFiles(matches, ["billing", "src"], project)?.sort()).toEqual(["billing/renewals.py", "billing/vendor.py", "src/Payments.java"]);
  expect(secondRunFiles([mark("params-factory", "billing/reports.py", "charge_customers_report")], ["."], project)).toEqual([]);
});

it("gives up (null: scan the targets) past the number of files a command line can carry", () => {
  for (let number = 0; number <= 1500; number += 1) write(`many/m${number}.py`, "charge_customer()\n");
  expect(candidateFiles(["."], project, ["charge_customer"])).toBeNull();
});
