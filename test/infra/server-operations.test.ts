// Flexible Server runs one operation at a time (ServerIsBusy otherwise, Azure/azure-postgresql issue 134): both plans
// chain every operation on the guard database's server, in the order Azure Verified Modules use, and the policy fails
// a plan in which two of them could run at once or out of that order.
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { stackArgs, type PolicyTarget } from "../../infra/plan/policy-args.js";
import { planTargets } from "./support/plan-targets.js";
import { planStack, type Plan } from "../../infra/plan/run-plan.js";
import { serverOperationsSerial } from "../../infra/policy/ordering-policies.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const plans: Record<string, Plan> = {};
beforeAll(async () => {
  plans.dev = await planStack({ stack: "dev", cwd: root });
  plans.prod = await planStack({ stack: "prod", cwd: root });
});

const OPERATION_TYPES = ["Database", "FirewallRule", "Configuration", "AdministratorsMicrosoftEntra"].map((t) => `azure-native:dbforpostgresql:${t}`);

/** The server's operations, each with what it declared to wait for, walked from the first along the chain. */
function chainOf(plan: Plan): { type: string; name: string }[] {
  const operations = plan.report.resources.filter((r) => OPERATION_TYPES.includes(r.type));
  const chain: { type: string; name: string }[] = [];
  let current = operations.find((r) => r.dependsOn.length === 0);
  while (current) {
    chain.push({ type: current.type.split(":").pop() as string, name: current.name });
    const name = current.name;
    current = operations.find((r) => r.dependsOn.includes(name));
  }
  expect(chain).toHaveLength(operations.length);
  return chain;
}

const targets = (plan: Plan, drop: (name: string) => boolean = () => false): PolicyTarget[] => planTargets(plan, (name) => !drop(name));

async function violations(subjects: PolicyTarget[]): Promise<string[]> {
  const messages: string[] = [];
  await serverOperationsSerial.validateStack(stackArgs(subjects), (message) => messages.push(message));
  return messages;
}

describe("operations on the guard database's server", () => {
  it("form one chain in dev: database, firewall rule, configurations one at a time, administrators", () => {
    expect(chainOf(plans.dev as Plan)).toEqual([
      { type: "Database", name: "guard-db-db" },
      { type: "FirewallRule", name: "guard-db-allow-azure" },
      { type: "Configuration", name: "guard-db-max-connections" },
      { type: "Configuration", name: "guard-db-database-activity-metrics" },
      { type: "AdministratorsMicrosoftEntra", name: "guard-db-entra-id-usage-billing-consumer" },
    ]);
  });

  it("form one chain in prod (no firewall rule: private access), the DBA administrator last", () => {
    expect(chainOf(plans.prod as Plan).map((o) => o.type)).toEqual(["Database", "Configuration", "Configuration", "AdministratorsMicrosoftEntra"]);
  });

  it("pass the policy in both plans", async () => {
    expect(await violations(targets(plans.dev as Plan))).toEqual([]);
    expect(await violations(targets(plans.prod as Plan))).toEqual([]);
  });

  it("fail the policy when a configuration no longer waits: it would run beside the firewall rule", async () => {
    const messages = await violations(targets(plans.dev as Plan, (name) => name === "guard-db-max-connections"));
    expect(messages.slice(0, 2)).toEqual([
      "server psql-billing-dev: configuration max_connections does not wait for database billing (dependsOn): the server runs one operation at a time and answers the other ServerIsBusy",
      "server psql-billing-dev: configuration max_connections does not wait for firewall rule AllowAzureServices (dependsOn): the server runs one operation at a time and answers the other ServerIsBusy",
    ]);
    // What came after it waited only through it: the second configuration and the administrator lose the chain too.
    expect(messages).toHaveLength(6);
  });

  it("fail the policy when everything runs at once, as before", async () => {
    const messages = await violations(targets(plans.dev as Plan, (name) => name.startsWith("guard-db-")));
    // 5 operations, each after all earlier ones: 1 + 2 + 3 + 4 missing waits, two configurations either way round.
    expect(messages).toHaveLength(10);
  });
});
