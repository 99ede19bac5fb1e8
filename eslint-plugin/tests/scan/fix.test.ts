// The scan's one mechanical fix (ast-grep `fix:`, applied with `ast-grep scan --interactive` or `-U`): an
// abandon_message() after a failed charge becomes a dead letter with its reason, the same receiver and message.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { astGrepBinary } from "../../src/scan/ast-grep-binary.js";
import { SCAN_CONFIG } from "../../src/scan/index.js";

const fixtures = fileURLToPath(new URL("../scan-fixtures", import.meta.url));

it("offers dead_letter_message with a reason in place of abandon_message after a failed charge", async () => {
  const { stdout } = await promisify(execFile)(astGrepBinary(), ["scan", "--config", SCAN_CONFIG, "--json=compact", "python/broken/abandon_on_timeout.py"], { cwd: fixtures }).catch(
    (error: { stdout: string }) => ({ stdout: error.stdout }), // exit 1: findings
  );
  const matches = (JSON.parse(stdout) as { ruleId: string; text: string; replacement?: string }[]).filter((match) => match.ruleId === "no-abandon-on-stripe-error@python");
  // The fixture abandons in two except clauses (a timeout and a Stripe error).
  expect(matches).toHaveLength(2);
  for (const match of matches) {
    const [receiver, message] = /^(.+)\.abandon_message\((.+)\)$/.exec(match.text)!.slice(1);
    expect(match.replacement).toBe(
      `${receiver}.dead_letter_message(${message}, reason="StripeOutcomeUnknown", error_description="A Stripe call failed after it may have moved money: reconcile before resubmitting.")`,
    );
  }
});
