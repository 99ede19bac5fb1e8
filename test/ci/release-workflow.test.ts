// The release workflow cannot be hijacked by a dev dependency: the job that installs and tests holds no id-token, the
// job that holds one runs nothing from the repository and publishes the tarballs the first packed, and every action
// is pinned by commit (a moved tag cannot change what runs).
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pinProblems, readWorkflow, runsOf as runs, type Job } from "../support/workflow.js";

const workflow = readWorkflow(path.resolve(import.meta.dirname, "../../.github/workflows/release.yml"));
const { jobs, text } = workflow;

describe("release workflow", () => {
  it("holds no id-token at the top or in any job that installs, builds or tests", () => {
    expect(workflow.permissions?.["id-token"]).toBeUndefined();
    const installing = jobs.filter(([, job]) => /npm (ci|install|test)\b/.test(runs(job)));
    expect(installing.length).toBeGreaterThan(0);
    for (const [name, job] of installing) expect(job.permissions?.["id-token"], name).toBeUndefined();
  });

  it("publishes from a separate job with id-token: write that checks nothing out, installs nothing and publishes packed tarballs with provenance", () => {
    const publishing = jobs.filter(([, job]) => job.permissions?.["id-token"] === "write");
    expect(publishing).toHaveLength(1);
    const [, publish] = publishing[0] as [string, Job];
    expect(publish.needs).toBeDefined();
    expect(publish.steps.some((step) => step.uses?.startsWith("actions/checkout@"))).toBe(false);
    expect(runs(publish)).not.toMatch(/npm (ci|install|test|run)\b/);
    expect(publish.steps.some((step) => step.uses?.startsWith("actions/download-artifact@"))).toBe(true);
    const publishes = runs(publish).split("\n").filter((line) => line.includes("npm publish"));
    expect(publishes).toHaveLength(3);
    for (const line of publishes) expect(line).toMatch(/npm publish --provenance .*packed\/.*\.tgz/);
    const builder = jobs.find(([, job]) => job.steps.some((step) => step.uses?.startsWith("actions/upload-artifact@")));
    expect(builder).toBeDefined();
    expect(runs((builder as [string, Job])[1])).toMatch(/npm pack/);
  });

  it("packs chargeguard with the publish stamp (npm publish <tarball> runs no prepublishOnly), and removes it after", () => {
    const builder = jobs.find(([, job]) => job.steps.some((step) => step.uses?.startsWith("actions/upload-artifact@")));
    const lines = runs((builder as [string, Job])[1]).split("\n").map((line) => line.trim());
    const packRoot = lines.indexOf("npm pack --pack-destination packed");
    expect(packRoot).toBeGreaterThan(0);
    expect(lines[packRoot - 1]).toBe("node scripts/publish-stamp.mjs");
    expect(lines[packRoot + 1]).toBe("node scripts/publish-stamp.mjs --remove");
  });

  it("pins every action by full commit SHA, with its tag in a comment", () => {
    expect(text.split("\n").filter((line) => /^\s*-?\s*uses:/.test(line)).length).toBeGreaterThanOrEqual(4);
    expect(pinProblems(text)).toEqual([]);
  });
});
