// GitHub workflows read as GitHub reads them (YAML), for the tests that hold the release's and the generated
// consumer's CI to least privilege and pinned actions.
import { readFileSync } from "node:fs";
import { parse } from "yaml";

export interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
}
export interface Job {
  needs?: string | string[];
  if?: string;
  permissions?: Record<string, string>;
  steps: Step[];
}
export interface Workflow {
  text: string;
  permissions?: Record<string, string>;
  jobs: [string, Job][];
}

export function readWorkflow(file: string): Workflow {
  const text = readFileSync(file, "utf8");
  const parsed = parse(text) as { permissions?: Record<string, string>; jobs: Record<string, Job> };
  return { text, ...(parsed.permissions ? { permissions: parsed.permissions } : {}), jobs: Object.entries(parsed.jobs) };
}

/** The job's shell commands, one step a paragraph. */
export const runsOf = (job: Job) => job.steps.map((step) => step.run ?? "").join("\n");

/**
 * The actions this project pins, each a full commit SHA read from the action's own repository (the tag's commit,
 * checked 2026-12-07): a workflow that names another SHA for the same tag is refused, so a typo cannot pass as a pin.
 */
export const verifiedActions: Record<string, string> = {
  "actions/checkout@11d5960a326750d5838078e36cf38b85af677262": "v4.4.0",
  "actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020": "v4.4.0",
  "actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02": "v4.6.2",
  "actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093": "v4.3.0",
  "github/codeql-action/upload-sarif@8aad20d150bbac5944a9f9d289da16a4b0d87c1e": "v4.36.2",
};

/** Every `uses:` line of the workflow: "<action>@<sha> # <tag>", the action and tag among the verified ones. */
export function pinProblems(text: string): string[] {
  const uses = text.split("\n").filter((line) => /^\s*-?\s*uses:/.test(line));
  if (uses.length === 0) return ["no uses: line at all"];
  return uses.flatMap((line) => {
    const match = /uses: ([\w.\/-]+@[0-9a-f]{40}) # (v\d+(?:\.\d+)*)$/.exec(line.trim().replace(/^- /, ""));
    if (!match) return [`not pinned by full commit SHA with its tag in a comment: ${line.trim()}`];
    const [, action, tag] = match as unknown as [string, string, string];
    return verifiedActions[action] === tag ? [] : [`not a verified pin: ${action} # ${tag}`];
  });
}
