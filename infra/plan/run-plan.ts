// The offline plan: runs the stack program under Pulumi mocks with a stack's config, collects what it would
// create, and checks it with the policy pack. No cloud credentials, no Pulumi CLI.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import {
  readStackConfigFile,
  toPulumiConfig,
  type StackConfigLocation,
  parseStackConfig,
  PROJECT,
  type StackConfig,
  isSecureValue,
} from "../config/index.js";
import { withoutPlainSecrets } from "../specs/index.js";
import { billingPolicies } from "../policy/policies.js";
import { defineStack } from "../program/stack.js";
import { flowStripeCalls, ROLLOUT_REVISIONS, type ConsumerSettings, type FlowName, type ReplicaBounds } from "../../tuning/index.js";
import { azureMocks, type MockedResource } from "./azure-mocks.js";
import { runPolicies, urnOf, type PolicyTarget, type Violation } from "./policy-args.js";
import { plannedAlerts, type PlannedAlert } from "./alert-plan.js";
import { exportedResources, type DeployedResource } from "./deployed-resources.js";
import { dayTwoPlan, type DayTwoPlan } from "./lock-plan.js";
import { plannedSecrets, type PlannedSecret } from "./secret-plan.js";

export interface PlannedResource {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
  /** Pulumi names of what it waits for beyond its inputs (dependsOn): the order Azure does not infer. */
  dependsOn: string[];
}

export interface PlannedQueue {
  name: string;
  /** The flow its consumer runs (the stack's queues[].flow) and the Stripe calls one message makes in it. */
  flow: FlowName;
  stripeCallsPerMessage: number;
  lockDuration: string;
  maxDeliveryCount: number;
  worstCaseStripeMs: number;
  consumer: ConsumerSettings;
}

/** A consumer app's computed bounds: max replicas and why, grace period, KEDA target, connections. */
export interface PlannedConsumer {
  app: string;
  queue: string;
  bounds: ReplicaBounds;
  /** Connections this app may hold at max replicas, against its share of the server's max_connections. */
  connections: { perReplica: number; atMaxReplicas: number; budget: number };
}

/** What `chargeguard plan --json` prints. */
export interface PlanReport {
  stack: string;
  resources: PlannedResource[];
  queues: PlannedQueue[];
  consumers: PlannedConsumer[];
  /** The secrets the apps read: names, phase, readers and the operator's step; never a value. */
  secrets: PlannedSecret[];
  /** Every alert with the signal it watches: a platform metric, or a log table and what fills it. */
  alerts: PlannedAlert[];
  violations: Violation[];
  /** With a baseline (--baseline): the deletes this change makes, which a delete lock or protect refuses, and the procedure. */
  dayTwo?: DayTwoPlan;
}

export interface Plan {
  report: PlanReport;
  file: string;
  config: StackConfig;
  /** Every registered resource with what the mocks answered (ids, Azure names). */
  mocked: MockedResource[];
  /** Pulumi names of the resources the program protects (`protect`: Pulumi refuses deleting them). */
  protectedNames: Set<string>;
  /** Pulumi names of the resources Pulumi forgets instead of deleting (`retainOnDelete`). */
  retainedNames: Set<string>;
}

export interface PlanOptions extends StackConfigLocation {
  /** Per-policy config, as in a policy pack's config file, e.g. { "servicebus-local-auth-disabled-in-prod": { productionStacks: ["prod"] } }. */
  policyConfig?: Record<string, Record<string, unknown>>;
  /** The deployed stack to plan the change against: the previous Pulumi.<stack>.yaml, or `pulumi stack export` JSON. */
  baseline?: string;
  /** The operator accepts the changes Azure cannot make in place (`--accept-replacement`): named, not refused. */
  acceptReplacement?: boolean;
}

interface StackOutputs {
  queues: Record<string, Omit<PlannedQueue, "flow" | "stripeCallsPerMessage"> & { childIds: string[] }>;
  consumers: Record<string, { queue: string; bounds: ReplicaBounds; appId: string }>;
}

/**
 * Offline there is no key to decrypt `{ secure: ... }` values: the program gets a placeholder (still handled as a
 * secret, and printed as "[secret]"). Under `pulumi up` the CLI hands the program the decrypted value.
 */
const SECURE_PLACEHOLDER = "https://secure-value.invalid/decrypted-by-pulumi-up";

function withSecurePlaceholders(value: unknown): unknown {
  if (isSecureValue(value)) return SECURE_PLACEHOLDER;
  if (Array.isArray(value)) return value.map(withSecurePlaceholders);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withSecurePlaceholders(item)]));
  }
  return value;
}

/** Records each resource's declared dependsOn by Pulumi name (plain resources, as this program passes them). */
function recordDependsOn(into: Map<string, string[]>, protectedNames: Set<string>, retainedNames: Set<string>): pulumi.ResourceTransformation {
  const names = new WeakMap<pulumi.Resource, string>();
  return (args) => {
    names.set(args.resource, args.name);
    if (args.opts.protect === true) protectedNames.add(args.name);
    if (args.opts.retainOnDelete === true) retainedNames.add(args.name);
    const declared = args.opts.dependsOn;
    const list = Array.isArray(declared) ? declared : declared === undefined ? [] : [declared];
    const named = list.flatMap((dependency) => {
      const name = pulumi.Resource.isInstance(dependency) ? names.get(dependency) : undefined;
      return name === undefined ? [] : [name];
    });
    if (named.length > 0) into.set(args.name, named);
    return undefined;
  };
}

const byTypeThenName = (a: PlannedResource, b: PlannedResource) =>
  a.type.localeCompare(b.type) || a.name.localeCompare(b.name);

// Pulumi mocks are process-wide: plans in one process run one after another.
let previous: Promise<unknown> = Promise.resolve();

/** The plan's resources as deployed resources (the baseline of a later change, or its target). */
export const deployedOf = (plan: Plan): DeployedResource[] =>
  plan.mocked
    .filter((resource) => resource.custom)
    .map((resource) => ({
      type: resource.type,
      name: resource.name,
      id: resource.id,
      inputs: resource.state,
      protect: plan.protectedNames.has(resource.name),
      retain: plan.retainedNames.has(resource.name),
    }));

/** The baseline's resources: a stack export as it is, a previous stack file planned under the same mocks. */
async function baselineResources(baseline: string, stack: string): Promise<DeployedResource[]> {
  if (baseline.endsWith(".json")) return exportedResources(JSON.parse(readFileSync(baseline, "utf8")));
  return deployedOf(await planUnderMocks({ stack, configFile: baseline }));
}

/** Plans a stack offline. Throws a StackConfigError (every problem listed) for an invalid config. */
export function planStack(options: PlanOptions): Promise<Plan> {
  const run = previous.then(async () => {
    if (options.baseline === undefined) return planUnderMocks(options);
    const { stack } = readStackConfigFile(options);
    const deployed = await baselineResources(options.baseline, stack);
    const plan = await planUnderMocks(options);
    plan.report.dayTwo = dayTwoPlan(stack, basename(options.baseline), deployed, deployedOf(plan), options.acceptReplacement === true);
    return plan;
  });
  previous = run.catch(() => undefined);
  return run;
}

async function planUnderMocks(options: PlanOptions): Promise<Plan> {
  const { stack, file, values } = readStackConfigFile(options);
  const config = parseStackConfig(values, file, stack);
  const secretKeys = Object.keys(values).filter((key) => JSON.stringify(withSecurePlaceholders(values[key])) !== JSON.stringify(values[key]));

  const mocked: MockedResource[] = [];
  await pulumi.runtime.setMocks(azureMocks((resource) => mocked.push(resource)), PROJECT, stack, false);
  pulumi.runtime.setAllConfig(toPulumiConfig(withSecurePlaceholders(values) as Record<string, unknown>), secretKeys);
  // Every child's id is among the outputs, so once they resolve every resource has been registered.
  const dependsOn = new Map<string, string[]>();
  const protectedNames = new Set<string>();
  const retainedNames = new Set<string>();
  // Inside a stack resource, as `pulumi up` runs the program: a stack transformation sees every resource's options,
  // so the plan records what each one waits for (dependsOn), which the mocks never see.
  const outputs = (await pulumi.runtime.runInPulumiStack(async () => {
    pulumi.runtime.registerStackTransformation(recordDependsOn(dependsOn, protectedNames, retainedNames));
    return defineStack();
  })) as unknown as StackOutputs;
  // Resolved outputs are not the end: a resource that waits for another (dependsOn, e.g. the database's Entra
  // administrators one after another) or is made inside an apply registers later. Pulumi's disconnect waits until no
  // registration is in flight, as `pulumi up` does before it finishes, so the plan holds everything `up` registers.
  await pulumi.runtime.disconnect();

  const custom = mocked.filter((resource) => resource.custom);
  const targets: PolicyTarget[] = custom.map((resource) => ({
    type: resource.type,
    name: resource.name,
    urn: urnOf(stack, PROJECT, resource.type, resource.name),
    inputs: resource.inputs,
    outputs: resource.state,
    dependsOn: dependsOn.get(resource.name) ?? [],
  }));
  const violations = await runPolicies(billingPolicies, targets, options.policyConfig, stack);

  const queues = config.queues.map((queue): PlannedQueue => {
    const output = outputs.queues[queue.name];
    if (!output) throw new Error(`the program built no queue ${queue.name}`);
    const { lockDuration, maxDeliveryCount, worstCaseStripeMs, consumer } = output;
    const flow = queue.flow ?? "payment-intent";
    return { name: queue.name, flow, stripeCallsPerMessage: flowStripeCalls[flow], lockDuration, maxDeliveryCount, worstCaseStripeMs, consumer };
  });

  // The bootstrap phase builds no app, nor a consumer's own first phase: nothing to report about one yet.
  const consumers = (config.bootstrap ? [] : (config.app?.consumers ?? [])).filter((consumer) => !consumer.bootstrap).map((consumer): PlannedConsumer => {
    const output = outputs.consumers[consumer.appName];
    if (!output) throw new Error(`the program built no consumer app ${consumer.appName}`);
    const { bounds } = output;
    return {
      app: consumer.appName,
      queue: consumer.queue,
      bounds,
      connections: {
        perReplica: bounds.connectionsPerReplica,
        // Both revisions of a rollout at their maximum.
        atMaxReplicas: bounds.connectionsPerReplica * bounds.maxReplicas * ROLLOUT_REVISIONS,
        budget: consumer.budget.connectionBudget,
      },
    };
  });

  return {
    // Nothing secret-shaped reaches the printed plan, marked secret or not: the policy names it, the plan hides it.
    report: withoutPlainSecrets({
      stack,
      resources: custom.map(({ type, name, inputs }) => ({ type, name, inputs, dependsOn: dependsOn.get(name) ?? [] })).sort(byTypeThenName),
      queues,
      consumers,
      secrets: plannedSecrets(config, mocked),
      alerts: plannedAlerts(custom),
      violations,
    }),
    file,
    config,
    mocked,
    protectedNames,
    retainedNames,
  };
}
