// Every rule's docs page is run: each sample under "## Wrong" must be reported by its rule and each under "## Right"
// must not, through a real ESLint with the typescript-eslint parser, as `configs.recommended` runs it. A fenced block
// is split into samples at blank lines (a page shows several wrong shapes in one block), so one shape that stops
// reporting fails here instead of drifting quietly from the rule. A sample whose first line is
// `// eslint.config.js: { rules: { ... } }` is linted with the options that line states.
import { readFileSync, readdirSync } from "node:fs";
import { Linter } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import plugin from "../src/index.js";

const docsDir = new URL("../docs/rules/", import.meta.url);
type Kind = "wrong" | "right";
interface Sample {
  kind: Kind;
  code: string;
}

/** The fenced ts blocks under "## Wrong" and "## Right" (to the next "## " heading), split at blank lines. */
export function samplesOf(markdown: string): Sample[] {
  const samples: Sample[] = [];
  let kind: Kind | undefined;
  for (const section of markdown.split(/^(?=## )/m)) {
    const heading = section.slice(0, section.indexOf("\n")).trim();
    kind = heading === "## Wrong" ? "wrong" : heading === "## Right" ? "right" : undefined;
    if (kind === undefined) continue;
    for (const [, block = ""] of section.matchAll(/^```ts\n([\s\S]*?)^```/gm)) {
      // The block's config comment and import lines belong to every sample after them.
      let prelude = /^\/\/ eslint\.config\.js: .*\n/.exec(block)?.[0] ?? "";
      for (const code of block.slice(prelude.length).split(/\n\s*\n/)) {
        if (/^\s*import /.test(code)) prelude += `${code}\n`;
        else if (code.trim() !== "") samples.push({ kind, code: `${prelude}${code}` });
      }
    }
  }
  return samples;
}

/** The rule's setting: "error", or the options the sample's first-line eslint.config.js comment gives it. */
function settingFor(rule: string, code: string): Linter.RuleEntry {
  const stated = /^\/\/ eslint\.config\.js: (.*)$/m.exec(code)?.[1];
  if (stated === undefined) return "error";
  // The comment is an eslint.config.js object literal as the page shows it (JS, not JSON: numeric separators).
  const config = new Function(`return (${stated});`)() as { rules: Record<string, Linter.RuleEntry> };
  return config.rules[`chargeguard/${rule}`] ?? "error";
}

const linter = new Linter({ configType: "flat" });

/** The rule's reports on one sample, with parse errors kept (a sample that does not parse is a broken page). */
export function lintSample(rule: string, code: string): Linter.LintMessage[] {
  return linter.verify(
    code,
    [
      {
        files: ["**/*.ts"],
        languageOptions: { parser: tseslint.parser, parserOptions: { sourceType: "module" } },
        plugins: plugin.configs.recommended.plugins,
        rules: { [`chargeguard/${rule}`]: settingFor(rule, code) },
      },
    ],
    "docs-sample.ts",
  );
}

/** A sample's verdict: a Wrong sample must be reported, a Right one must not, and neither may fail to parse. */
function expectVerdict(rule: string, { kind, code }: Sample): void {
  const messages = lintSample(rule, code);
  expect(messages.filter((message) => message.ruleId === null).map((message) => message.message), code).toEqual([]);
  if (kind === "wrong") expect(messages.length, `a Wrong sample of ${rule} is not reported:\n${code}`).toBeGreaterThan(0);
  else expect(messages.map((message) => message.message), code).toEqual([]);
}

const pages = readdirSync(docsDir).filter((file) => file.endsWith(".md"));

describe("rule docs", () => {
  it("every rule has a page with Wrong and Right samples", () => {
    expect(pages.map((page) => page.replace(/\.md$/, "")).sort()).toEqual(Object.keys(plugin.rules).sort());
    for (const page of pages) {
      const kinds = new Set(samplesOf(readFileSync(new URL(page, docsDir), "utf8")).map((sample) => sample.kind));
      expect([...kinds].sort(), page).toEqual(["right", "wrong"]);
    }
  });

  for (const page of pages) {
    const rule = page.replace(/\.md$/, "");
    for (const [index, sample] of samplesOf(readFileSync(new URL(page, docsDir), "utf8")).entries()) {
      it(`${rule}: ${sample.kind} sample ${index + 1} ${sample.kind === "wrong" ? "reports" : "stays clean"}`, () => expectVerdict(rule, sample));
    }
  }

  it("a Wrong sample the rule does not report fails the page (a stable key shown as wrong)", () => {
    const page = "## Wrong\n\n```ts\nawait stripe.paymentIntents.create(params, { idempotencyKey: stableKey(event) });\n```\n";
    const [sample] = samplesOf(page);
    expect(sample?.kind).toBe("wrong");
    expect(() => expectVerdict("stable-idempotency-key", sample!)).toThrow(/Wrong sample of stable-idempotency-key is not reported/);
  });

  it("a Right sample the rule reports fails the page (a per-delivery key shown as right)", () => {
    const page = "## Right\n\n```ts\nawait stripe.paymentIntents.create(params, { idempotencyKey: message.messageId });\n```\n";
    const [sample] = samplesOf(page);
    expect(() => expectVerdict("stable-idempotency-key", sample!)).toThrow();
  });
});
