// What every policy module shares: type matching (with aliases), the stack of a URN, and which stacks are production.
import type { ReportViolation, ResourceValidationArgs, StackValidationArgs } from "@pulumi/policy";
import { DEFAULT_PRODUCTION_STACKS } from "../config/index.js";
import { isType } from "./resource-types.js";

export { DEFAULT_PRODUCTION_STACKS };

/** Runs `check` only for resources of `type` (any API version or alias); every other resource is not this policy's business. */
export function forType(
  type: string,
  check: (props: Record<string, unknown>, args: ResourceValidationArgs, report: ReportViolation) => void,
) {
  return (args: ResourceValidationArgs, report: ReportViolation) => {
    if (isType(args.type, type)) check(args.props, args, report);
  };
}

/** `urn:pulumi:<stack>::<project>::<type>::<name>` -> stack. */
export function stackOfUrn(urn: string): string | undefined {
  return /^urn:pulumi:([^:]+)::/.exec(urn)?.[1];
}

export interface ProductionConfig {
  productionStacks?: string[];
}

export const productionConfigSchema = {
  properties: {
    productionStacks: { type: "array" as const, items: { type: "string" as const }, default: DEFAULT_PRODUCTION_STACKS },
  },
};

export function isProductionStack(urn: string | undefined, config: ProductionConfig): boolean {
  const stack = urn === undefined ? undefined : stackOfUrn(urn);
  return stack !== undefined && (config.productionStacks ?? DEFAULT_PRODUCTION_STACKS).includes(stack);
}

type Props = Record<string, unknown>;
/** A property as a map (anything else: empty), for reading resource properties the engine hands over untyped. */
export const obj = (value: unknown): Props => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Props) : {});
/** A property as a list (anything else: empty). */
export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
/** The stack's resources of one type, aliases included. */
export const ofType = (args: StackValidationArgs, type: string) => args.resources.filter((resource) => isType(resource.type, type));
