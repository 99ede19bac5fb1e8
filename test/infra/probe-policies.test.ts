// Every consumer app the plan deploys carries the three probes, on the port the generated consumer answers; the policy
// fails an app without one, or one that asks another port.
import { fileURLToPath } from "node:url";
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { describe, expect, it } from "vitest";
import { resourceArgs, urnOf, type PolicyTarget } from "../../infra/plan/policy-args.js";
import { planStack } from "../../infra/plan/run-plan.js";
import { consumerProbesPolicy } from "../../infra/policy/probe-policies.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

async function violations(policy: ResourceValidationPolicy, subject: PolicyTarget): Promise<string[]> {
  const messages: string[] = [];
  for (const validate of [policy.validateResource ?? []].flat()) await validate(resourceArgs(subject), (message) => messages.push(message));
  return messages;
}

describe("consumer probes", () => {
  it("are on every app of both stacks, on HEALTH_PORT, and the policy fails an app without them", async () => {
    for (const stack of ["dev", "prod"]) {
      const plan = await planStack({ stack, cwd: root });
      const apps = plan.mocked.filter((r) => r.custom && r.type === "azure-native:app:ContainerApp");
      expect(apps.length).toBeGreaterThan(0);
      for (const app of apps) {
        const subject = { type: app.type, name: app.name, urn: urnOf(stack, "chargeguard", app.type, app.name), inputs: app.inputs, outputs: app.state };
        expect(await violations(consumerProbesPolicy, subject)).toEqual([]);
        const container = (app.inputs.template as { containers: { probes: { type: string; httpGet: { path: string; port: number } }[]; env: { name: string; value?: string }[] }[] }).containers[0]!;
        expect(container.probes.map((probe) => `${probe.type} ${probe.httpGet.path}`)).toEqual(["Startup /startup", "Readiness /ready", "Liveness /live"]);
        expect(container.env.find((entry) => entry.name === "HEALTH_PORT")?.value).toBe("8080");

        const withoutLiveness = structuredClone(subject);
        const stripped = (withoutLiveness.inputs.template as { containers: { probes: { type: string; httpGet: { port: number } }[] }[] }).containers[0]!;
        stripped.probes = stripped.probes.filter((probe) => probe.type !== "Liveness");
        stripped.probes[0]!.httpGet.port = 9090;
        expect(await violations(consumerProbesPolicy, withoutLiveness)).toEqual([
          `app ${String(app.inputs.containerAppName)}: container consumer's Startup probe asks port 9090, not HEALTH_PORT (8080) where the consumer answers`,
          `app ${String(app.inputs.containerAppName)}: container consumer has no Liveness probe`,
        ]);
      }
    }
  });
});
