// Runs the policy objects the way the Pulumi policy engine would, without a PolicyPack (which would start a gRPC
// server): resource policies see each resource's inputs, stack policies see every resource's outputs.
import type {
  EnforcementLevel,
  PolicyResource,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";
import { ChargeguardSignal } from "../../errors/index.js";

export interface PolicyTarget {
  type: string;
  name: string;
  urn: string;
  /** Inputs for resource policies. */
  inputs: Record<string, unknown>;
  /** Outputs for stack policies. */
  outputs: Record<string, unknown>;
  /** Pulumi names of the resources it was declared to wait for (dependsOn), as the program registered them. */
  dependsOn?: string[];
}

export interface Violation {
  policy: string;
  /** The Pulumi name of the resource (or the stack, for stack-wide findings). */
  resource: string;
  level: EnforcementLevel;
  message: string;
}

export function urnOf(stack: string, project: string, type: string, name: string): string {
  return `urn:pulumi:${stack}::${project}::${type}::${name}`;
}

/** A policy's own "this does not apply here", thrown to runPolicies and caught there: a signal, not a refusal. */
class NotApplicable extends ChargeguardSignal {}

const noOptions = {
  protect: false,
  ignoreChanges: [],
  aliases: [],
  customTimeouts: { createSeconds: 0, updateSeconds: 0, deleteSeconds: 0 },
  additionalSecretOutputs: [],
};

/** Every key of the policy's config schema at its default, as Pulumi fills them in. */
function configOf(policy: ResourceValidationPolicy | StackValidationPolicy, overrides: Record<string, unknown>): object {
  const defaults = Object.fromEntries(
    Object.entries(policy.configSchema?.properties ?? {}).map(([key, schema]) => [key, (schema as { default?: unknown }).default]),
  );
  return { ...defaults, ...overrides };
}

const typeToken = (resourceClass: unknown) => (resourceClass as { __pulumiType?: string }).__pulumiType;

export function resourceArgs(target: PolicyTarget, config: object = {}): ResourceValidationArgs {
  return {
    type: target.type,
    props: target.inputs,
    urn: target.urn,
    name: target.name,
    opts: noOptions,
    stackTags: new Map(),
    isType: (resourceClass) => typeToken(resourceClass) === target.type,
    asType: (resourceClass) => (typeToken(resourceClass) === target.type ? (target.inputs as never) : undefined),
    getConfig: <T extends object>() => config as T,
    notApplicable: (reason?: string) => {
      throw new NotApplicable(reason);
    },
  };
}

export function stackArgs(targets: PolicyTarget[], config: object = {}): StackValidationArgs {
  const resources: (PolicyResource & { dependsOnNames: string[] })[] = targets.map((target) => ({
    dependsOnNames: target.dependsOn ?? [],
    type: target.type,
    props: target.outputs,
    urn: target.urn,
    name: target.name,
    opts: noOptions,
    dependencies: [],
    propertyDependencies: {},
    isType: (resourceClass) => typeToken(resourceClass) === target.type,
    asType: (resourceClass) => (typeToken(resourceClass) === target.type ? (target.outputs as never) : undefined),
  }));
  // The policy engine's dependencies: the declared dependsOn, resolved to the resources themselves.
  for (const resource of resources) {
    resource.dependencies = resource.dependsOnNames.flatMap((name) => resources.filter((other) => other.name === name));
  }
  return {
    resources,
    stackTags: new Map(),
    getConfig: <T extends object>() => config as T,
    notApplicable: (reason?: string) => {
      throw new NotApplicable(reason);
    },
  };
}

/** Runs every policy over the targets and returns the violations, in policy order. */
export async function runPolicies(
  policies: (ResourceValidationPolicy | StackValidationPolicy)[],
  targets: PolicyTarget[],
  policyConfig: Record<string, Record<string, unknown>> = {},
  stackName = "stack",
): Promise<Violation[]> {
  const violations: Violation[] = [];
  const nameOfUrn = new Map(targets.map((target) => [target.urn, target.name]));
  for (const policy of policies) {
    const level = policy.enforcementLevel ?? "advisory";
    if (level === "disabled") continue;
    const config = configOf(policy, policyConfig[policy.name] ?? {});
    const collect = (fallback: string) => (message: string, urn?: string) => {
      violations.push({ policy: policy.name, resource: (urn && nameOfUrn.get(urn)) ?? fallback, level, message });
    };
    try {
      if ("validateStack" in policy) {
        await policy.validateStack(stackArgs(targets, config), collect(stackName));
        continue;
      }
      const validations = [policy.validateResource ?? []].flat();
      for (const target of targets) {
        for (const validate of validations) {
          try {
            await validate(resourceArgs(target, config), collect(target.name));
          } catch (error) {
            if (!(error instanceof NotApplicable)) throw error;
          }
        }
      }
    } catch (error) {
      if (!(error instanceof NotApplicable)) throw error;
    }
  }
  return violations;
}
