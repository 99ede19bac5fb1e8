// What `chargeguard plan` shows is what `pulumi up` registers: the plan's resources equal those of a full run of the
// stack program under the same Pulumi mocks, left to register until nothing new arrives (resources that wait for
// another, like the database's Entra administrators added one after another, register after the outputs resolve).
import { fileURLToPath } from "node:url";
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { readStackConfigFile, toPulumiConfig, PROJECT } from "../../infra/config/index.js";
import { azureMocks, type MockedResource } from "../../infra/plan/azure-mocks.js";
import { planStack } from "../../infra/plan/run-plan.js";
import { defineStack } from "../../infra/program/stack.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const key = (resource: { type: string; name: string }) => `${resource.type} ${resource.name}`;

/** Runs the program under mocks and waits until no resource has registered for a while. */
async function fullRun(stack: string): Promise<string[]> {
  const { values } = readStackConfigFile({ stack, cwd: root });
  const registered: MockedResource[] = [];
  await pulumi.runtime.setMocks(azureMocks((resource) => registered.push(resource)), PROJECT, stack, false);
  pulumi.runtime.setAllConfig(toPulumiConfig(values));
  defineStack();
  let seen = -1;
  while (seen !== registered.length) {
    seen = registered.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return registered.filter((resource) => resource.custom).map(key).sort();
}

describe.each(["dev", "prod"])("the %s plan", (stack) => {
  it("holds every resource a full run under the mocks registers", async () => {
    const plan = await planStack({ stack, cwd: root });
    const planned = plan.report.resources.map(key).sort();
    const full = await fullRun(stack);
    expect(planned).toEqual(full);
    // The late ones the policies must see: every Entra administrator of the database, every Container App alert.
    const admins = plan.report.resources.filter((resource) => resource.type === "azure-native:dbforpostgresql:AdministratorsMicrosoftEntra");
    const configured = plan.config.database?.administrators.length ?? 0;
    expect(admins).toHaveLength(configured > 0 ? configured : (plan.config.app?.consumers.length ?? 0));
  }, 60_000);
});
