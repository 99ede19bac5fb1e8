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
  serviceBusSender: { from: "package", package: "@azure/service-bus", name: ["ServiceBusSender"] },
  stripeClient: { from: "package", package: "stripe", name: ["Stripe"] },
} as const satisfies Record<string, TypeUtils.PackageSpecifier>;

export type SdkType = keyof typeof SPECIFIERS;

/** A declaration file of the `stripe` package (any install layout: nested, hoisted, pnpm's `.pnpm/stripe@x`). */
const STRIPE_DECLARATION = /[\\/]node_modules[\\/](?:\.pnpm[\\/][^\\/]+[\\/]node_modules[\\/])?stripe[\\/]/;

/**
 * Answers questions about the TypeScript program when the rule runs with type information. Every answer is
 * `undefined` when nothing is known (no program, `any`, `unknown`, an error type): the rules then fall back to what
 * the syntax shows.
 */
export interface TypeOracle {
  /** Is this node's static type the SDK type (or, for the Stripe client, a class or interface derived from it)? */
  is(node: TSESTree.Node, kind: SdkType): boolean | undefined;
  /** Is the method this member expression names declared by the `stripe` package (`x.paymentIntents.create`)? */
  isStripeMethod(member: TSESTree.MemberExpression): boolean | undefined;
  /** Does this node's type carry `name` as a property the `stripe` package declares (`idempotencyKey` of RequestOptions)? */
  hasStripeProperty(node: TSESTree.Node, name: string): boolean | undefined;
  /** The declarations, in this file, of what a callee refers to (a method of an injected service, a helper). */
  declarationsOf(node: TSESTree.Node): TSESTree.Node[];
  /** The string literal values a node's type allows (`"receiveAndDelete" | "peekLock"`), or `undefined`. */
  stringLiterals(node: TSESTree.Node): string[] | undefined;
}

// type-utils loads `typescript`; only rules that have a program (so TypeScript is installed) reach it.
const require = createRequire(import.meta.url);
let typeUtils: typeof TypeUtils | undefined;

export function typeOracle(context: Readonly<TSESLint.RuleContext<string, readonly unknown[]>>): TypeOracle | null {
  const services = context.sourceCode.parserServices;
  const program = services?.program;
  const nodeMap = services?.esTreeNodeToTSNodeMap;
  const backMap = services?.tsNodeToESTreeNodeMap;
  if (!program || !nodeMap || !backMap) return null;
  typeUtils ??= require("@typescript-eslint/type-utils") as typeof TypeUtils;
  return new ProgramTypeOracle(typeUtils, program, nodeMap as unknown as NodeMap<TSESTree.Node, ts.Node>, backMap as unknown as NodeMap<ts.Node, TSESTree.Node>);
}

/** The parser services' maps between ESTree and TypeScript nodes, read only through `get`. */
interface NodeMap<From, To> {
  get(node: From): To | undefined;
}

/** The oracle over one program: each answer computed once per node and question. */
class ProgramTypeOracle implements TypeOracle {
  readonly #utils: typeof TypeUtils;
  readonly #program: ts.Program;
  readonly #checker: ts.TypeChecker;
  readonly #nodeMap: NodeMap<TSESTree.Node, ts.Node>;
  readonly #backMap: NodeMap<ts.Node, TSESTree.Node>;
  readonly #answers = new WeakMap<TSESTree.Node, Map<string, unknown>>();

  constructor(utils: typeof TypeUtils, program: ts.Program, nodeMap: NodeMap<TSESTree.Node, ts.Node>, backMap: NodeMap<ts.Node, TSESTree.Node>) {
    this.#utils = utils;
    this.#program = program;
    this.#checker = program.getTypeChecker();
    this.#nodeMap = nodeMap;
    this.#backMap = backMap;
  }

  is(node: TSESTree.Node, kind: SdkType): boolean | undefined {
    return this.#remember(node, kind, () => {
      const type = this.#typeOf(node);
      return type ? this.#matches(type, kind) : undefined;
    });
  }

  isStripeMethod(member: TSESTree.MemberExpression): boolean | undefined {
    return this.#remember(member, "stripe-method", () => {
      const property = this.#tsNodeOf(member.property);
      const object = this.#typeOf(member.object);
      if (!property || !object) return undefined;
      const symbol = this.#checker.getSymbolAtLocation(property);
      return symbol ? declaredByStripe(symbol) : false;
    });
  }

  hasStripeProperty(node: TSESTree.Node, name: string): boolean | undefined {
    return this.#remember(node, `stripe-property:${name}`, () => {
      const type = this.#typeOf(node);
      if (!type) return undefined;
      const property = type.getProperty(name);
      return property ? declaredByStripe(property) : false;
    });
  }

  declarationsOf(node: TSESTree.Node): TSESTree.Node[] {
    return this.#remember(node, "declarations", () => {
      const tsNode = this.#tsNodeOf(node);
      if (!tsNode) return [];
      const target = (tsNode as ts.PropertyAccessExpression).name ?? tsNode;
      let symbol = this.#checker.getSymbolAtLocation(target);
      if (symbol && symbol.flags & ALIAS) symbol = this.#checker.getAliasedSymbol(symbol);
      const file = tsNode.getSourceFile();
      return (symbol?.getDeclarations() ?? [])
        .filter((declaration) => declaration.getSourceFile() === file)
        .map((declaration) => this.#backMap.get(declaration))
        .filter((declaration): declaration is TSESTree.Node => declaration !== undefined);
    });
  }

  stringLiterals(node: TSESTree.Node): string[] | undefined {
    return this.#remember(node, "string-literals", () => {
      const tsNode = this.#tsNodeOf(node);
      if (!tsNode) return undefined;
      const type = this.#checker.getTypeAtLocation(tsNode);
      const parts = type.isUnion() ? type.types : [type];
      if (!parts.every((part) => part.isStringLiteral())) return undefined;
      return parts.map((part) => (part as ts.StringLiteralType).value);
    });
  }

  #remember<T>(node: TSESTree.Node, question: string, compute: () => T): T {
    let perNode = this.#answers.get(node);
    if (!perNode) this.#answers.set(node, (perNode = new Map()));
    if (perNode.has(question)) return perNode.get(question) as T;
    const answer = compute();
    perNode.set(question, answer);
    return answer;
  }

  #tsNodeOf(node: TSESTree.Node): ts.Node | undefined {
    return this.#nodeMap.get(node);
  }

  #typeOf(node: TSESTree.Node): ts.Type | undefined {
    const tsNode = this.#tsNodeOf(node);
    if (!tsNode) return undefined;
    const type = this.#checker.getNonNullableType(this.#checker.getTypeAtLocation(tsNode));
    return isUninformative(type) ? undefined : type;
  }

  #matches(type: ts.Type, kind: SdkType, seen = new Set<ts.Type>()): boolean {
    if (seen.has(type)) return false;
    seen.add(type);
    if (this.#utils.typeMatchesSpecifier(type, SPECIFIERS[kind], this.#program)) return true;
    if (kind !== "stripeClient") return false;
    // A subclass of Stripe, an interface extending it, or a type made of its resources (`Pick<Stripe, "charges">`).
    if (type.isClassOrInterface() || (type.getFlags() & OBJECT) !== 0) {
      const bases = type.isClassOrInterface() ? this.#checker.getBaseTypes(type as ts.InterfaceType) : [];
      if (bases.some((base) => this.#matches(base, kind, seen))) return true;
      const resource = type.getProperty("paymentIntents") ?? type.getProperty("charges") ?? type.getProperty("refunds");
      if (resource && declaredByStripe(resource)) return true;
    }
    if (type.isUnionOrIntersection()) return type.types.some((part) => this.#matches(part, kind, seen));
    return false;
  }
}

function declaredByStripe(symbol: ts.Symbol): boolean {
  return (symbol.getDeclarations() ?? []).some((declaration) => STRIPE_DECLARATION.test(declaration.getSourceFile().fileName));
}

// ts.TypeFlags.Any | Unknown, ts.TypeFlags.Object, ts.SymbolFlags.Alias (numeric values are stable public API;
// importing `typescript` here is avoided).
const ANY_OR_UNKNOWN = 1 | 2;
const OBJECT = 1 << 19;
const ALIAS = 1 << 21;

function isUninformative(type: ts.Type): boolean {
  return (type.flags & ANY_OR_UNKNOWN) !== 0 || (type as { intrinsicName?: string }).intrinsicName === "error";
}
