// KEDA's scaler needs the Manage claim on its queue (Data Owner) and the consumer must not have it: the prod plan
// gives the scale rule its own identity, and the policy fails a plan whose scale rule's identity lacks Manage, or
// that grants Manage to anyone else, the app's own identity first of all.
import { fileURLToPath } from "node:url";
import type { StackValidationPolicy } from "@pulumi/policy";
import { beforeAll, describe, expect, it } from "vitest";
import { builtInRoles } from "../../infra/specs/index.js";
import { stackArgs, urnOf, type PolicyTarget } from "../../infra/plan/policy-args.js";
import { planStack, type Plan } from "../../infra/plan/run-plan.js";
import { dataRolesAtQueueScope } from "../../infra/policy/policies.js";
import { scalerIdentityPlatformOnly, scalerManageRight } from "../../infra/policy/scaler-policies.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const ofType = (plan: Plan, type: string) => plan.mocked.filter((r) => r.custom && r.type === `azure-native:${type}`);
const clone = <T>(value: T): T => structuredClone(value);

let plan: Plan;
beforeAll(async () => {
  plan = await planStack({ stack: "prod", cwd: root });
});

function targets(resources = plan.mocked.filter((r) => r.custom)): PolicyTarget[] {
  return resources.map((r) => ({ type: r.type, name: r.name, urn: urnOf("prod", "chargeguard", r.type, r.name), inputs: r.state, outputs: r.state }));
}

async function violations(policy: StackValidationPolicy, subjects: PolicyTarget[]): Promise<string[]> {
  const messages: string[] = [];
  await policy.validateStack(stackArgs(subjects, { productionStacks: ["prod"] }), (message) => messages.push(message));
  return messages;
}

const app = (subjects: PolicyTarget[], name: string) => subjects.find((s) => s.type === "azure-native:app:ContainerApp" && s.inputs.containerAppName === name) as PolicyTarget;
const ruleOf = (subject: PolicyTarget) => (subject.inputs.template as { scale: { rules: { custom: { identity: string } }[] } }).scale.rules[0]!.custom;

describe("the KEDA scaler's identity", () => {
  it("is its own, with Data Owner on its queue only, and the consumer's identity holds no Manage", () => {
    const queue = ofType(plan, "servicebus:Queue").find((r) => r.inputs.queueName === "usage-billing")!;
    const consumerIdentity = ofType(plan, "managedidentity:UserAssignedIdentity").find((r) => r.inputs.resourceName === "id-usage-billing-consumer")!;
    const scaler = ofType(plan, "managedidentity:UserAssignedIdentity").find((r) => r.inputs.resourceName === "id-usage-billing-consumer-scaler")!;
    const rule = ruleOf(app(targets(), "usage-billing-consumer"));
    expect(rule.identity).toBe(scaler.id);
    const owners = ofType(plan, "authorization:RoleAssignment").filter((r) => String(r.inputs.roleDefinitionId).endsWith(builtInRoles.serviceBusDataOwner));
    expect(owners.filter((r) => r.inputs.principalId === scaler.state.principalId).map((r) => r.inputs.scope)).toEqual([queue.id]);
    expect(owners.filter((r) => r.inputs.principalId === consumerIdentity.state.principalId)).toEqual([]);
    // The app carries both identities (a scale rule may only use one of the app's), and signs in as the consumer's.
    expect((app(targets(), "usage-billing-consumer").inputs.identity as { userAssignedIdentities: string[] }).userAssignedIdentities).toEqual([consumerIdentity.id, scaler.id]);
  });

  it("passes the policy as planned, in both stacks", async () => {
    expect(await violations(scalerManageRight, targets())).toEqual([]);
    const dev = await planStack({ stack: "dev", cwd: root });
    expect(await violations(scalerManageRight, dev.mocked.filter((r) => r.custom).map((r) => ({ type: r.type, name: r.name, urn: urnOf("dev", "chargeguard", r.type, r.name), inputs: r.state, outputs: r.state })))).toEqual([]);
  });

  it("fails a plan whose scale rule signs in with the consumer's identity, which holds no Manage", async () => {
    const subjects = clone(targets());
    const consumerIdentity = subjects.find((s) => s.inputs.resourceName === "id-usage-billing-consumer")!;
    ruleOf(app(subjects, "usage-billing-consumer")).identity = String(consumerIdentity.inputs.id);
    expect(await violations(scalerManageRight, subjects)).toEqual([
      "app usage-billing-consumer: scale rule servicebus-queue's identity holds no Azure Service Bus Data Owner on queue usage-billing: KEDA cannot read the queue's runtime properties (Manage claim) and never scales",
      expect.stringMatching(/grants Azure Service Bus Data Owner to a principal that is no scale rule's identity/),
    ]);
  });

  it("fails a plan that gives the consumer's identity Manage, or Manage on the whole namespace", async () => {
    const subjects = clone(targets());
    const consumerIdentity = subjects.find((s) => s.inputs.resourceName === "id-usage-billing-consumer")!;
    const grant = subjects.find((s) => s.type === "azure-native:authorization:RoleAssignment" && String(s.inputs.roleDefinitionId).endsWith(builtInRoles.serviceBusDataOwner))!;
    const stolen = clone(grant);
    stolen.inputs.roleAssignmentName = "stolen";
    stolen.inputs.principalId = consumerIdentity.inputs.principalId;
    expect(await violations(scalerManageRight, [...subjects, stolen])).toEqual([
      "role assignment stolen grants Azure Service Bus Data Owner to a principal that is no scale rule's identity: only KEDA's scaler needs Manage",
      "app usage-billing-consumer: its own identity (AZURE_CLIENT_ID) holds Azure Service Bus Data Owner: the consumer must not manage queues; give the scale rule its own identity",
    ]);
    const wide = { ...clone(grant), inputs: { ...grant.inputs, scope: String(grant.inputs.scope).replace(/\/queues\/.*$/, "") } };
    const messages: string[] = [];
    for (const validate of [dataRolesAtQueueScope.validateResource ?? []].flat()) {
      await validate({ type: wide.type, name: wide.name, urn: wide.urn, props: wide.inputs } as never, (message) => messages.push(message));
    }
    expect(messages).toEqual([expect.stringMatching(/grants Azure Service Bus Data Owner on the whole namespace .* only a KEDA scaler needs it, on its queue/)]);
  });
});

describe("the scaler's identity serves KEDA only (identitySettings, issue 35 item 2)", () => {
  type Settings = { identity: string; lifecycle: string }[];
  const settingsOf = (subject: PolicyTarget) => (subject.inputs.configuration as { identitySettings: Settings }).identitySettings;

  it("is planned with lifecycle None, the consumer's identity for the main container, and passes the policy", async () => {
    const subjects = targets();
    const consumer = app(subjects, "usage-billing-consumer");
    const scaler = subjects.find((s) => s.inputs.resourceName === "id-usage-billing-consumer-scaler")!;
    const own = subjects.find((s) => s.inputs.resourceName === "id-usage-billing-consumer")!;
    expect(settingsOf(consumer)).toEqual([
      { identity: own.inputs.id, lifecycle: "Main" },
      { identity: scaler.inputs.id, lifecycle: "None" },
    ]);
    expect(await violations(scalerIdentityPlatformOnly, subjects)).toEqual([]);
  });

  it("fails an app whose scaler identity the container can use: no settings, or lifecycle All", async () => {
    const subjects = clone(targets());
    const consumer = app(subjects, "usage-billing-consumer");
    (consumer.inputs.configuration as { identitySettings?: Settings }).identitySettings = undefined;
    const invoice = app(subjects, "invoice-settlement-consumer");
    settingsOf(invoice)[1]!.lifecycle = "All";
    expect(await violations(scalerIdentityPlatformOnly, subjects)).toEqual([
      'app usage-billing-consumer: scale rule servicebus-queue\'s identity is not in configuration.identitySettings, so available to every container: give it lifecycle "None" so the consumer\'s code cannot take its token (Data Owner on the queue)',
      'app invoice-settlement-consumer: scale rule servicebus-queue\'s identity is available to containers (lifecycle All): give it lifecycle "None" so the consumer\'s code cannot take its token (Data Owner on the queue)',
    ]);
  });
});
