// The offline plan (`chargeguard plan`): run the stack program under Pulumi mocks and check it with the policies.
export { planStack, type Plan, type PlanOptions, type PlanReport, type PlannedQueue, type PlannedResource } from "./run-plan.js";
export { formatPlan } from "./format-plan.js";
export { runPolicies, resourceArgs, stackArgs, type PolicyTarget, type Violation } from "./policy-args.js";
export { azureMocks, PLAN_SUBSCRIPTION_ID, type MockedResource } from "./azure-mocks.js";
export { StackConfigError } from "../config/index.js";

import type { PlanReport } from "./run-plan.js";

/**
 * 0: clean (advisories allowed); 1: a mandatory policy failed, or (with a baseline) a lock refuses a delete, a queue
 * would be replaced, a production app would arrive with its new identity before the DBA gave it a role, or a database
 * server would be deleted (with its backups; never through a maintenance window); 3: (with a baseline) a change Azure cannot make in place, not accepted with --accept-replacement.
 * Invalid config is 2 (see the CLI).
 */
export const PLAN_EXIT_CANNOT_CHANGE_IN_PLACE = 3;
export function planExitCode(report: PlanReport): number {
  // A delete a lock refuses fails `pulumi up` as surely as a mandatory policy; a replaced queue loses its messages.
  const dayTwo = report.dayTwo;
  if (dayTwo && dayTwo.cannotChangeInPlace.length > 0 && !dayTwo.replacementAccepted) return PLAN_EXIT_CANNOT_CHANGE_IN_PLACE;
  const refused = (dayTwo?.lockConflicts ?? 0) + (dayTwo?.queueReplacements ?? 0) + (dayTwo?.appsBeforeTheirRole.length ?? 0) + (dayTwo?.serverDeletes ?? 0);
  return report.violations.some((violation) => violation.level === "mandatory") || refused > 0 ? 1 : 0;
}
