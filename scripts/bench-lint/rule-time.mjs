// ESLint's own accounting: the time spent inside chargeguard's rules, a figure no neighbour on the machine can blur.
import { lint } from "./lint-once.mjs";

/** One run with ESLint's per-rule statistics on `directory`; prints chargeguard's share of the lint time, rule by rule. */
export async function reportRuleTime(directory, { typed }) {
  const { results } = await lint(directory, { typed, withPlugin: true, stats: true });
  let ruleTime = 0;
  let lintTime = 0;
  const perRule = new Map();
  for (const result of results) {
    for (const pass of result.stats?.times.passes ?? []) {
      lintTime += pass.total;
      for (const [rule, time] of Object.entries(pass.rules ?? {})) {
        if (!rule.startsWith("chargeguard/")) continue;
        ruleTime += time.total;
        perRule.set(rule, (perRule.get(rule) ?? 0) + time.total);
      }
    }
  }
  console.log(`inside chargeguard's rules (eslint stats): ${ruleTime.toFixed(0)} ms of ${lintTime.toFixed(0)} ms lint time (${((ruleTime / lintTime) * 100).toFixed(1)}%)`);
  console.log(`  ${[...perRule].sort((a, b) => b[1] - a[1]).map(([rule, time]) => `${rule.slice(12)} ${time.toFixed(0)} ms`).join(", ")}`);
}
