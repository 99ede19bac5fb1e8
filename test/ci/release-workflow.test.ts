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

  it("publishes from a separate job with id-token: write that checks nothing out, installs nothing and publishes verified tarballs with provenance", () => {
    const publishing = jobs.filter(([, job]) => job.permissions?.["id-token"] === "write");
    expect(publishing).toHaveLength(1);
    const [, publish] = publishing[0] as [string, Job];
    expect(publish.steps.some((step) => step.uses?.startsWith("actions/checkout@"))).toBe(false);
    expect(runs(publish)).not.toMatch(/npm (ci|install|test|run)\b|node /);
    const download = publish.steps.find((step) => step.uses?.startsWith("actions/download-artifact@"));
    expect(download?.with?.["name"]).toBe("verified");
    const publishes = runs(publish).split("\n").filter((line) => line.includes("npm publish"));
    expect(publishes).toHaveLength(3);
    for (const line of publishes) expect(line).toMatch(/npm publish --provenance .*verified\/.*\.tgz/);
  });

  it("packs in the build job, packs again from a clean build (install scripts off, no tests) and compares them before the job that holds id-token (#44)", () => {
    const byName = new Map(jobs);
    const build = byName.get("build") as Job;
    const verify = byName.get("verify") as Job;
    const publish = byName.get("publish") as Job;
    expect(runs(build)).toMatch(/npm test/);
    expect(runs(build)).toMatch(/node scripts\/pack-release\.mjs packed/);
    // The clean build: its own checkout, no install scripts, the compiler only, no id-token.
    expect([verify.needs].flat()).toContain("build");
    expect(verify.permissions).toEqual({ contents: "read" });
    expect(verify.steps.some((step) => step.uses?.startsWith("actions/checkout@"))).toBe(true);
    const clean = runs(verify);
    expect(clean).toMatch(/npm ci --ignore-scripts/);
    expect(clean).not.toMatch(/npm (test|install)\b|npm run (test|lint)/);
    const order = ["npm run build", "node scripts/pack-release.mjs verified", "node scripts/compare-packs.mjs packed verified"].map((command) => clean.indexOf(command));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    expect(verify.steps.find((step) => step.uses?.startsWith("actions/download-artifact@"))?.with?.["name"]).toBe("packed");
    expect(verify.steps.find((step) => step.uses?.startsWith("actions/upload-artifact@"))?.with?.["name"]).toBe("verified");
    expect([publish.needs].flat()).toEqual(expect.arrayContaining(["build", "verify"]));
  });

  it("packs chargeguard with the publish stamp (npm publish <tarball> runs no prepublishOnly), and removes it after", async () => {
    // @ts-expect-error: a plain .mjs script without types
    const { packSteps } = (await import("../../scripts/pack-release.mjs")) as { packSteps(dest: string): [string, string[]][] };
    const steps = packSteps("out").map(([program, args]) => `${program === process.execPath ? "node" : program} ${args.map((arg) => arg.replace(/^.*scripts\//, "scripts/")).join(" ")}`);
    const packRoot = steps.indexOf("npm pack --pack-destination out");
    expect(packRoot).toBeGreaterThan(0);
    expect(steps[packRoot - 1]).toBe("node scripts/publish-stamp.mjs");
    expect(steps[packRoot + 1]).toBe("node scripts/publish-stamp.mjs --remove");
    expect(steps.filter((step) => step.startsWith("npm pack"))).toHaveLength(3);
  });

  it("pins every action by full commit SHA, with its tag in a comment", () => {
    expect(text.split("\n").filter((line) => /^\s*-?\s*uses:/.test(line)).length).toBeGreaterThanOrEqual(4);
    expect(pinProblems(text)).toEqual([]);
  });
});
