// The generated consumer's CI (the template and the examples' copies) holds least privilege (#44): every action
// pinned by a verified commit SHA, no token kept after checkout, code-scanning writes only in the job that uploads
// (which checks out and runs nothing of the repository), the SARIF formatter from a pinned devDependency rather than
// installed at run time.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pinProblems, readWorkflow, runsOf } from "../support/workflow.js";

const root = path.resolve(import.meta.dirname, "../..");
const copies = [
  "templates/files/consumer/.github/workflows/ci.yml",
  ...readdirSync(path.join(root, "examples"))
    .filter((name) => name.startsWith("generated-consumer"))
    .map((name) => `examples/${name}/.github/workflows/ci.yml`),
];

describe.each(copies)("%s", (file) => {
  const workflow = readWorkflow(path.join(root, file));

  it("pins every action by a verified full commit SHA, with its tag in a comment", () => {
    expect(pinProblems(workflow.text)).toEqual([]);
  });

  it("grants nothing at the top and security-events: write only to the job that uploads SARIF, which runs no repository code", () => {
    expect(workflow.permissions).toEqual({});
    const writers = workflow.jobs.filter(([, job]) => job.permissions?.["security-events"] === "write");
    expect(writers.map(([name]) => name)).toEqual(["upload-sarif"]);
    const [, upload] = writers[0] as [string, (typeof workflow.jobs)[number][1]];
    expect(upload.steps.some((step) => step.uses?.startsWith("github/codeql-action/upload-sarif@"))).toBe(true);
    expect(upload.steps.some((step) => step.uses?.startsWith("actions/checkout@"))).toBe(false);
    expect(runsOf(upload).trim()).toBe("");
    for (const [name, job] of workflow.jobs) {
      expect(job.permissions, name).toBeDefined();
      for (const [scope, level] of Object.entries(job.permissions ?? {})) {
        if (scope !== "contents" || level !== "read") expect(`${name}: ${scope}: ${level}`).toBe("upload-sarif: security-events: write");
      }
      if (name !== "upload-sarif") expect(job.steps.some((step) => step.uses?.startsWith("github/codeql-action/")), name).toBe(false);
    }
  });

  it("keeps no checkout token and installs no formatter at run time", () => {
    const checkouts = workflow.jobs.flatMap(([, job]) => job.steps.filter((step) => step.uses?.startsWith("actions/checkout@")));
    expect(checkouts.length).toBeGreaterThan(0);
    for (const step of checkouts) expect(step.with?.["persist-credentials"]).toBe(false);
    for (const [name, job] of workflow.jobs) expect(runsOf(job), name).not.toMatch(/npm (install|i|add)\b|npx -y|npm exec --yes/);
    expect(workflow.text).toMatch(/--format \.\/node_modules\/eslint-plugin-chargeguard\/dist\/formatters\/sarif\.js/);
  });
});

it("the SARIF formatter the workflow names ships in the plugin's package", () => {
  const plugin = JSON.parse(readFileSync(path.join(root, "eslint-plugin/package.json"), "utf8")) as { exports: Record<string, unknown>; files: string[] };
  expect(plugin.exports["./sarif"]).toBe("./dist/formatters/sarif.js");
  expect(plugin.files).toContain("dist");
});
