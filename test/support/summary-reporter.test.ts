// The closing lines CI reads: the counts last, and before them each skip reason a test named, with its files.
import { expect, test, vi } from "vitest";
import type { TestModule } from "vitest/node";
import SummaryReporter from "./summary-reporter.js";

function module(id: string, tests: Array<[name: string, state: string]>): TestModule {
  const cases = tests.map(([fullName, state]) => ({ fullName, result: () => ({ state }) }));
  return { relativeModuleId: id, state: () => "passed", children: { size: cases.length, allTests: () => cases } } as unknown as TestModule;
}

function report(modules: TestModule[]): string {
  let out = "";
  const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((out += String(chunk)), true));
  try {
    new SummaryReporter().onTestRunEnd(modules);
  } finally {
    write.mockRestore();
  }
  return out;
}

test("a named skip reason is printed once per reason, with its files and count, before the counts", () => {
  const why = "/usr/bin/python3 lacks proton (No module named 'proton'): apt-get install python3-qpid-proton";
  const out = report([
    module("test/a.e2e.test.ts", [[`clients (SKIPPED: ${why}) > sends`, "skipped"], [`clients (SKIPPED: ${why}) > receives`, "skipped"], ["other", "passed"]]),
    module("test/b.e2e.test.ts", [[`suite (SKIPPED: ${why}) > links`, "skipped"], ["suite > guard (SKIPPED: no TEST_DATABASE_URL)", "skipped"], ["x", "failed"]]),
  ]);
  expect(out.trim().split("\n")).toEqual([
    `SKIPPED 3 test(s) in test/a.e2e.test.ts, test/b.e2e.test.ts: ${why}`,
    "SKIPPED 1 test(s) in test/b.e2e.test.ts: no TEST_DATABASE_URL",
    "",
    "1 passed, 1 failed, 4 skipped",
  ]);
});

test("skips without a named reason (test.skip, -t filters) only count", () => {
  expect(report([module("test/c.test.ts", [["plain", "skipped"], ["ok", "passed"]])])).toBe("\n1 passed, 0 failed, 1 skipped\n");
});
