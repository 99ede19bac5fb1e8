// A plan's resources as the policy engine sees them (inputs and outputs: the mocks' state), each with the dependsOn
// the plan recorded; `keep` drops declared waits, to build the broken plan a policy must fail. Copies: edit freely.
import { urnOf, type PolicyTarget } from "../../../infra/plan/policy-args.js";
import type { Plan } from "../../../infra/plan/run-plan.js";

export function planTargets(plan: Plan, keep: (name: string, dependency: string) => boolean = () => true): PolicyTarget[] {
  const dependsOn = new Map(plan.report.resources.map((r) => [r.name, r.dependsOn]));
  return plan.mocked
    .filter((r) => r.custom)
    .map((r) => {
      // A copy: a test edits it into a broken plan without touching the plan other tests read.
      const state = structuredClone(r.state);
      return {
        type: r.type,
        name: r.name,
        urn: urnOf(plan.report.stack, "chargeguard", r.type, r.name),
        inputs: state,
        outputs: state,
        dependsOn: (dependsOn.get(r.name) ?? []).filter((dependency) => keep(r.name, dependency)),
      };
    });
}
