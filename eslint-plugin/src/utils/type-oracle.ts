import { createRequire } from "node:module";
import type { TSESLint, TSESTree } from "@typescript-eslint/utils";
import type * as TypeUtils from "@typescript-eslint/type-utils";
import type * as ts from "typescript";

/** The SDK types the typed config confirms before it reports. */
const SPECIFIERS = {
  serviceBusMessage: {
    from: "package",
    package: "@azure/service-bus",
    name: ["ServiceBusReceivedMessage", "ServiceBusMessage"],
  },
  serviceBusReceiver: {
    from: "package",
    package: "@azure/service-bus",
    name: ["ServiceBusReceiver", "ServiceBusSessionReceiver"],
  },
  stripeClient: { from: "package", package: "stripe", name: ["Stripe"] },
} as const satisfies Record<string, TypeUtils.PackageSpecifier>;

export type SdkType = keyof typeof SPECIFIERS;

/**
 * Answers "is this node's static type the SDK type?" from the TypeScript program when the rule runs with type
 * information: `true`, `false`, or `undefined` when nothing is known (no program, `any`, `unknown`, an error
 * type), in which case the rules fall back to what the syntax shows.
 */
export interface TypeOracle {
  is(node: TSESTree.Node, kind: SdkType): boolean | undefined;
}

// type-utils loads `typescript`; only rules that have a program (so TypeScript is installed) reach it.
const require = createRequire(import.meta.url);
let typeUtils: typeof TypeUtils | undefined;

export function typeOracle(context: Readonly<TSESLint.RuleContext<string, readonly unknown[]>>): TypeOracle | null {
  const services = context.sourceCode.parserServices;
  const program = services?.program;
  const nodeMap = services?.esTreeNodeToTSNodeMap;
  if (!program || !nodeMap) return null;
  typeUtils ??= require("@typescript-eslint/type-utils") as typeof TypeUtils;
  const utils = typeUtils;
  const checker = program.getTypeChecker();
  const answers = new WeakMap<TSESTree.Node, Map<SdkType, boolean | undefined>>();
  return {
    is(node, kind) {
      let perNode = answers.get(node);
      if (!perNode) answers.set(node, (perNode = new Map()));
      if (perNode.has(kind)) return perNode.get(kind);
      const tsNode = nodeMap.get(node as never) as ts.Node | undefined;
      let answer: boolean | undefined;
      if (tsNode) {
        const type = checker.getNonNullableType(checker.getTypeAtLocation(tsNode));
        answer = isUninformative(type) ? undefined : utils.typeMatchesSpecifier(type, SPECIFIERS[kind], program);
      }
      perNode.set(kind, answer);
      return answer;
    },
  };
}

// ts.TypeFlags.Any | Unknown (the numeric values are stable public API; importing `typescript` here is avoided).
const ANY_OR_UNKNOWN = 1 | 2;

function isUninformative(type: ts.Type): boolean {
  return (type.flags & ANY_OR_UNKNOWN) !== 0 || (type as { intrinsicName?: string }).intrinsicName === "error";
}
