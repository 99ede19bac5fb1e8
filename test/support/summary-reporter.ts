// Prints the plain closing line "N passed, N failed, N skipped" that CI reads to know tests ran; before it, why tests
// were skipped, for those that name their reason "(SKIPPED: why)" (the tests of clients installed from Debian's
// packages), so a skip cannot pass unseen in a long log.
import type { Reporter, TestModule } from "vitest/node";

const namedReason = /\(SKIPPED: (.+?)\)(?= > |$)/;

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const reasons = new Map<string, { tests: number; files: Set<string> }>();
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else {
          skipped++;
          const reason = namedReason.exec(test.fullName)?.[1];
          if (!reason) continue;
          const entry = reasons.get(reason) ?? { tests: 0, files: new Set<string>() };
          entry.tests++;
          entry.files.add(module.relativeModuleId);
          reasons.set(reason, entry);
        }
      }
      if (module.state() === "failed" && module.children.size === 0) failed++;
    }
    for (const [reason, { tests, files }] of reasons) {
      process.stdout.write(`\nSKIPPED ${tests} test(s) in ${[...files].join(", ")}: ${reason}`);
    }
    process.stdout.write(`${reasons.size > 0 ? "\n" : ""}\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
