/**
 * Test and mock files, by the names test runners give them (#42). A team runs its tests against mocks and Stripe's
 * test mode: a charge with no key in a test is not a production risk, and a test-mode key in a mock is not a leak. So
 * the money and Service Bus rules skip these files, and the secret rule reports only live keys there. Decided by file
 * name and the runners' own folders (`__tests__`, `__mocks__`, Maven's `src/test/`), not by any folder called `test`,
 * which would also hide a service's code under `test-harness/` or a package named `tests`.
 */
const TEST_FILE = [
  /(^|\/)(__tests__|__mocks__)\//,
  /\.(test|spec)\.[cm]?[jt]sx?$/,
  /(^|\/)(test_[^/]*|[^/]*_test|conftest)\.py$/,
  /(^|\/)src\/test\//,
  /(Test|Tests|IT)\.java$/,
];

export function isTestFile(file: string): boolean {
  const normalized = file.split("\\").join("/");
  return TEST_FILE.some((pattern) => pattern.test(normalized));
}

/** A live-mode secret or restricted key: the only key a test or mock file may not hold. */
export const LIVE_KEY = /(?<![A-Za-z0-9])(sk|rk)_live_/;
