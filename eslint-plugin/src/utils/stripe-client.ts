import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "./analysis.js";
import { bindingOf } from "./binding.js";
import { localImportOf } from "./imported-client.js";
import { CLIENT_RESOURCES } from "./local-module.js";
import { calledFunction, enclosingClassBody, returnedExpressions } from "./local-function.js";
import { moduleOrigin } from "./module-origin.js";
import { staticName } from "./static-name.js";
import { annotationOf } from "./type-annotation.js";
import { typeDeclarationOf, type TypeDeclaration } from "./type-declaration.js";
import { unwrap } from "./unwrap.js";
import { walk } from "./walk.js";

/** What a receiver of `.paymentIntents.create(...)` is: a Stripe client, provably something else, or unknown. */
export type ClientVerdict = "stripe" | "other" | "unknown";

/** Resources whose presence in a declared type makes it (a slice of) the Stripe client. */

/**
 * Follows a value to where it was made: `new Stripe(key)`, `Stripe(key)`, `require("stripe")(key)`, a subclass of
 * Stripe, a variable, a class field or constructor assignment (`this.stripe`), a same-file factory (awaited or
 * not), or a declared type: `Stripe`, `import("stripe").default`, `typeof stripe`, or a type of the file derived
 * from Stripe (`interface Payments extends Pick<Stripe, "refunds">`). In typed mode the checker settles whatever
 * the syntax does not prove to be Stripe: it may turn "other" or "unknown" into an answer, never "stripe" into less.
 */
export function stripeClientVerdict(analysis: Analysis, node: TSESTree.Node): ClientVerdict {
  const target = unwrap(node);
  return analysis.memo(
    "stripe-client",
    target,
    () => {
      const verdict = syntacticClientVerdict(analysis, target);
      if (verdict === "stripe" || !analysis.oracle) return verdict;
      const typed = analysis.oracle.is(target, "stripeClient");
      return typed === undefined ? verdict : typed ? "stripe" : "other";
    },
    "unknown",
  );
}

/** What the syntax alone proves (memoised apart from the typed answer, which may differ). */
export function syntacticClientVerdict(analysis: Analysis, node: TSESTree.Node): ClientVerdict {
  const target = unwrap(node);
  return analysis.memo("stripe-client-syntax", target, () => syntacticVerdict(analysis, target), "unknown");
}

function syntacticVerdict(analysis: Analysis, node: TSESTree.Node): ClientVerdict {
  switch (node.type) {
    case AST_NODE_TYPES.NewExpression:
    case AST_NODE_TYPES.CallExpression: {
      if (isStripeConstructor(analysis, node.callee)) return "stripe";
      if (node.type === AST_NODE_TYPES.NewExpression) return constructedClassVerdict(analysis, node.callee);
      if (!calledFunction(analysis, node.callee)) return containerVerdict(analysis, node);
      return factoryVerdict(analysis, node.callee);
    }
    case AST_NODE_TYPES.Identifier:
      return identifierVerdict(analysis, node);
    case AST_NODE_TYPES.MemberExpression:
      return node.object.type === AST_NODE_TYPES.ThisExpression ? fieldVerdict(analysis, node) : "unknown";
    case AST_NODE_TYPES.ObjectExpression:
    case AST_NODE_TYPES.ArrayExpression:
    case AST_NODE_TYPES.Literal:
    case AST_NODE_TYPES.TemplateLiteral:
      return "other";
    default:
      return "unknown";
  }
}

/** What a same-file factory returns: its declared return type, else what its `return`s make. */
function factoryVerdict(analysis: Analysis, callee: TSESTree.Node): ClientVerdict {
  const factory = calledFunction(analysis, callee);
  if (!factory) return "unknown";
  if (factory.returnType) {
    const declared = typeVerdict(analysis, factory.returnType.typeAnnotation, 0);
    if (declared !== "unknown") return declared;
  }
  const verdicts = returnedExpressions(analysis.sourceCode, factory).map((value) => syntacticClientVerdict(analysis, value));
  return verdicts.includes("stripe") ? "stripe" : "unknown";
}

/** DI containers' lookups by class: `container.resolve(PaymentsClient)`, `moduleRef.get(PaymentsClient)`. */
const CONTAINER_LOOKUPS = new Set(["get", "resolve", "getInstance", "make"]);

/** What a DI container hands out for a class token that is a subclass of Stripe (here or in a project module). */
function containerVerdict(analysis: Analysis, call: TSESTree.CallExpression): ClientVerdict {
  const [token] = call.arguments;
  const lookup = call.callee.type === AST_NODE_TYPES.MemberExpression ? staticName(call.callee) : null;
  if (!token || lookup === null || !CONTAINER_LOOKUPS.has(lookup) || token.type !== AST_NODE_TYPES.Identifier) return "unknown";
  return constructedClassVerdict(analysis, token) === "stripe" ? "stripe" : "unknown";
}

function isStripeConstructor(analysis: Analysis, callee: TSESTree.Node): boolean {
  const origin = moduleOrigin(analysis.sourceCode, callee);
  return origin?.module === "stripe" && (origin.path.length === 0 || (origin.path.length === 1 && origin.path[0] === "Stripe"));
}

/** `new X()`: Stripe when X is a same-file subclass of Stripe, other for any other class of the file, else unknown. */
function constructedClassVerdict(analysis: Analysis, callee: TSESTree.Node, depth = 0): ClientVerdict {
  const target = unwrap(callee);
  if (isStripeConstructor(analysis, target)) return "stripe";
  if (depth > 4) return "unknown";
  if (target.type === AST_NODE_TYPES.Identifier) {
    const imported = localImportOf(analysis, target);
    if (imported) return imported.facts.subclasses.has(imported.exported) ? "stripe" : "unknown";
  }
  const declaration =
    target.type === AST_NODE_TYPES.ClassExpression
      ? target
      : target.type === AST_NODE_TYPES.Identifier
        ? typeDeclarationOf(analysis.sourceCode, target)
        : null;
  if (declaration?.type !== AST_NODE_TYPES.ClassDeclaration && declaration?.type !== AST_NODE_TYPES.ClassExpression) return "unknown";
  if (!declaration.superClass) return "other";
  const parent = constructedClassVerdict(analysis, declaration.superClass, depth + 1);
  return parent === "unknown" ? "unknown" : parent;
}

function identifierVerdict(analysis: Analysis, identifier: TSESTree.Identifier): ClientVerdict {
  const binding = bindingOf(analysis.sourceCode, identifier);
  if (!binding) return "unknown";
  const { definition } = binding;
  const declared = annotationVerdict(analysis, definition.name);
  if (declared !== "unknown") return declared;
  if (definition.type === "ImportBinding") {
    // `import { payments } from "./lib/payments.js"` where that module makes the client.
    const imported = localImportOf(analysis, identifier);
    return imported?.facts.clients.has(imported.exported) ? "stripe" : "unknown";
  }
  if (
    definition.type === "Variable" &&
    definition.node.type === AST_NODE_TYPES.VariableDeclarator &&
    definition.node.id.type === AST_NODE_TYPES.Identifier &&
    definition.node.init
  ) {
    return syntacticClientVerdict(analysis, definition.node.init);
  }
  return "unknown";
}

/** `this.stripe`: the field's initialiser or declared type, or what the constructor assigns to it. */
function fieldVerdict(analysis: Analysis, member: TSESTree.MemberExpression): ClientVerdict {
  const name = staticName(member);
  const body = enclosingClassBody(member);
  if (name === null || !body) return "unknown";
  // Every `this.stripe.x.create()` of a class asks about the same field: answered once per class and field.
  return analysis.memo(`field:${name}`, body, () => classFieldVerdict(analysis, body, name), "unknown");
}

function classFieldVerdict(analysis: Analysis, body: TSESTree.ClassBody, name: string): ClientVerdict {
  for (const element of body.body) {
    if (element.type === AST_NODE_TYPES.PropertyDefinition && !element.static && staticName(element) === name) {
      if (element.value) return syntacticClientVerdict(analysis, element.value);
      const declared = annotationVerdict(analysis, element);
      if (declared !== "unknown") return declared;
    }
    if (element.type === AST_NODE_TYPES.MethodDefinition && element.kind === "constructor" && element.value.type === AST_NODE_TYPES.FunctionExpression) {
      const verdict = constructorVerdict(analysis, element.value, name);
      if (verdict !== "unknown") return verdict;
    }
  }
  // Made later than construction: NestJS's `onModuleInit() { this.client = new Stripe(...) }`, a lazy `connect()`.
  for (const element of body.body) {
    if (element.type !== AST_NODE_TYPES.MethodDefinition || element.kind !== "method" || element.static || !element.value.body) continue;
    if (assignedVerdict(analysis, element.value.body, name) === "stripe") return "stripe";
  }
  return "unknown";
}

function constructorVerdict(analysis: Analysis, constructor: TSESTree.FunctionExpression, name: string): ClientVerdict {
  for (const parameter of constructor.params) {
    if (parameter.type === AST_NODE_TYPES.TSParameterProperty) {
      const inner = parameter.parameter.type === AST_NODE_TYPES.AssignmentPattern ? parameter.parameter.left : parameter.parameter;
      if (inner.type === AST_NODE_TYPES.Identifier && inner.name === name) return annotationVerdict(analysis, inner);
    }
  }
  return assignedVerdict(analysis, constructor.body, name);
}

/** What the first `this.<name> = value` in `body` assigns. */
function assignedVerdict(analysis: Analysis, body: TSESTree.BlockStatement, name: string): ClientVerdict {
  let verdict: ClientVerdict = "unknown";
  walk(analysis.sourceCode, body, (node) => {
    if (
      verdict === "unknown" &&
      node.type === AST_NODE_TYPES.AssignmentExpression &&
      node.left.type === AST_NODE_TYPES.MemberExpression &&
      node.left.object.type === AST_NODE_TYPES.ThisExpression &&
      staticName(node.left) === name
    ) {
      verdict = syntacticClientVerdict(analysis, node.right);
    }
  });
  return verdict;
}

function annotationVerdict(analysis: Analysis, node: TSESTree.Node): ClientVerdict {
  const type = annotationOf(node);
  return type ? typeVerdict(analysis, type, 0) : "unknown";
}

/**
 * What a declared type says about a client: `Stripe` (imported from "stripe", or any type named like it),
 * `import("stripe").default`, `Promise<Stripe>`, `Pick<Stripe, ...>`, `typeof stripe`, unions with `undefined`,
 * and the file's own classes, interfaces and aliases derived from those. Any other named type is something else.
 */
function typeVerdict(analysis: Analysis, type: TSESTree.TypeNode, depth: number): ClientVerdict {
  if (depth > 6) return "unknown";
  switch (type.type) {
    case AST_NODE_TYPES.TSImportType: {
      // import("stripe").default, import("stripe").Stripe, import("stripe")
      const qualifier = type.qualifier?.type === AST_NODE_TYPES.Identifier ? type.qualifier.name : type.qualifier ? null : "default";
      return importsStripeModule(type) && (qualifier === "default" || qualifier === "Stripe") ? "stripe" : "unknown";
    }
    case AST_NODE_TYPES.TSTypeQuery:
      return type.exprName.type === AST_NODE_TYPES.Identifier ? syntacticClientVerdict(analysis, type.exprName) : "unknown";
    case AST_NODE_TYPES.TSUnionType:
    case AST_NODE_TYPES.TSIntersectionType: {
      const verdicts = type.types.map((part) => typeVerdict(analysis, part, depth + 1));
      return verdicts.includes("stripe") ? "stripe" : verdicts.includes("unknown") ? "unknown" : "other";
    }
    case AST_NODE_TYPES.TSUndefinedKeyword:
    case AST_NODE_TYPES.TSNullKeyword:
      return "other";
    case AST_NODE_TYPES.TSAnyKeyword:
    case AST_NODE_TYPES.TSUnknownKeyword:
      return "unknown";
    case AST_NODE_TYPES.TSTypeLiteral:
      return membersVerdict(analysis, type.members, depth);
    case AST_NODE_TYPES.TSMappedType:
      return mappedVerdict(analysis, type, depth);
    case AST_NODE_TYPES.TSTypeReference:
      return referenceVerdict(analysis, type, depth);
    default:
      return "other";
  }
}

function referenceVerdict(analysis: Analysis, type: TSESTree.TSTypeReference, depth: number): ClientVerdict {
  const name = type.typeName;
  const argument = type.typeArguments?.params[0];
  if (name.type === AST_NODE_TYPES.TSQualifiedName) {
    // `Stripe.Stripe` is the client; `Stripe.ChargesResource` and friends are not.
    const origin = name.left.type === AST_NODE_TYPES.Identifier ? moduleOrigin(analysis.sourceCode, name.left) : null;
    if (origin?.module === "stripe") return name.right.name === "Stripe" ? "stripe" : "unknown";
    return /stripe/i.test(name.right.name) ? "stripe" : "other";
  }
  if (name.type !== AST_NODE_TYPES.Identifier) return "unknown";
  // Wrappers that keep the client: Promise<Stripe>, Pick<Stripe, ...>, Readonly<Stripe>, ...
  if (argument && /^(Promise|PromiseLike|Awaited|Pick|Omit|Partial|Required|Readonly|NonNullable)$/.test(name.name)) {
    return typeVerdict(analysis, argument, depth + 1);
  }
  // What a constructor or a factory makes: InstanceType<typeof Stripe>, ReturnType<typeof makeStripe>.
  if (argument?.type === AST_NODE_TYPES.TSTypeQuery && argument.exprName.type === AST_NODE_TYPES.Identifier) {
    if (name.name === "InstanceType") return constructedClassVerdict(analysis, argument.exprName);
    if (name.name === "ReturnType") return factoryVerdict(analysis, argument.exprName);
  }
  const origin = moduleOrigin(analysis.sourceCode, name);
  const imported = origin?.module.startsWith(".") ? localImportOf(analysis, name) : null;
  if (imported?.facts.subclasses.has(imported.exported) || imported?.facts.clientTypes.has(imported.exported)) return "stripe";
  if (imported?.facts.usesStripe) return "unknown"; // a wrapper of the client, or a type of a module that uses it
  if (origin && origin.module !== "<global>") return origin.module === "stripe" ? "stripe" : /stripe/i.test(name.name) ? "stripe" : "other";
  const declaration = typeDeclarationOf(analysis.sourceCode, name);
  if (declaration) return declarationVerdict(analysis, declaration, depth);
  return /stripe/i.test(name.name) ? "stripe" : "other";
}

/** A type the file declares: a subclass of Stripe, an interface extending it, or made of its resources. */
function declarationVerdict(analysis: Analysis, declaration: TypeDeclaration, depth: number): ClientVerdict {
  switch (declaration.type) {
    case AST_NODE_TYPES.TSTypeAliasDeclaration:
      return typeVerdict(analysis, declaration.typeAnnotation, depth + 1);
    case AST_NODE_TYPES.TSInterfaceDeclaration: {
      for (const heritage of declaration.extends) {
        if (heritageVerdict(analysis, heritage.expression, heritage.typeArguments?.params[0], depth) === "stripe") return "stripe";
      }
      return membersVerdict(analysis, declaration.body.body, depth);
    }
    default:
      return declaration.superClass ? constructedClassVerdict(analysis, declaration.superClass) : "other";
  }
}

function heritageVerdict(analysis: Analysis, expression: TSESTree.Node, argument: TSESTree.TypeNode | undefined, depth: number): ClientVerdict {
  if (expression.type !== AST_NODE_TYPES.Identifier) return "unknown";
  if (argument && /^(Pick|Omit|Partial|Required|Readonly)$/.test(expression.name)) return typeVerdict(analysis, argument, depth + 1);
  const origin = moduleOrigin(analysis.sourceCode, expression);
  if (origin?.module === "stripe") return "stripe";
  const declaration = typeDeclarationOf(analysis.sourceCode, expression);
  return declaration ? declarationVerdict(analysis, declaration, depth + 1) : "unknown";
}

/**
 * `{ paymentIntents: Stripe.PaymentIntentsResource }`, `{ charges: Stripe["charges"] }`, `{ "refunds": ... }`,
 * `{ [K in "paymentIntents"]: Stripe[K] }`: a slice of the client, its members taken from Stripe's own types.
 */
function membersVerdict(analysis: Analysis, members: readonly TSESTree.TypeElement[], depth: number): ClientVerdict {
  for (const member of members) {
    if (member.type !== AST_NODE_TYPES.TSPropertySignature) continue;
    const key = member.key.type === AST_NODE_TYPES.Identifier ? member.key.name : member.key.type === AST_NODE_TYPES.Literal ? String(member.key.value) : null;
    if (key === null || !CLIENT_RESOURCES.has(key)) continue;
    const type = annotationOf(member);
    if (type && mentionsStripe(analysis, type, depth)) return "stripe";
  }
  return "other";
}

function mappedVerdict(analysis: Analysis, type: TSESTree.TSMappedType, depth: number): ClientVerdict {
  const keys = type.constraint.type === AST_NODE_TYPES.TSUnionType ? type.constraint.types : [type.constraint];
  const names = keys.flatMap((key) => (key.type === AST_NODE_TYPES.TSLiteralType && key.literal.type === AST_NODE_TYPES.Literal ? [String(key.literal.value)] : []));
  if (!names.some((name) => CLIENT_RESOURCES.has(name)) || !type.typeAnnotation) return "other";
  return mentionsStripe(analysis, type.typeAnnotation, depth) ? "stripe" : "other";
}

/** Whether a member's type is taken from Stripe's: `Stripe["x"]["create"]`, `Pick<Stripe["x"], "create">`, `{ create: Stripe["x"]["create"] }`. */
function mentionsStripe(analysis: Analysis, type: TSESTree.TypeNode, depth: number): boolean {
  if (depth > 8) return false;
  switch (type.type) {
    case AST_NODE_TYPES.TSIndexedAccessType:
      return type.objectType.type === AST_NODE_TYPES.TSIndexedAccessType
        ? mentionsStripe(analysis, type.objectType, depth + 1)
        : typeVerdict(analysis, type.objectType, depth + 1) === "stripe";
    case AST_NODE_TYPES.TSImportType:
      return importsStripeModule(type);
    case AST_NODE_TYPES.TSTypeLiteral:
      return type.members.some((member) => {
        const inner = member.type === AST_NODE_TYPES.TSPropertySignature ? annotationOf(member) : null;
        return inner !== null && mentionsStripe(analysis, inner, depth + 1);
      });
    case AST_NODE_TYPES.TSTypeReference: {
      const name = type.typeName;
      const argument = type.typeArguments?.params[0];
      if (argument && name.type === AST_NODE_TYPES.Identifier && /^(Pick|Omit|Partial|Required|Readonly|NonNullable)$/.test(name.name)) {
        return mentionsStripe(analysis, argument, depth + 1);
      }
      const root = name.type === AST_NODE_TYPES.TSQualifiedName ? name.left : name;
      return root.type === AST_NODE_TYPES.Identifier && moduleOrigin(analysis.sourceCode, root)?.module === "stripe";
    }
    default:
      return false;
  }
}

function importsStripeModule(type: TSESTree.TSImportType): boolean {
  return type.source.value === "stripe";
}
