import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";

/** The type node a declaration is annotated with (`x: T`, `private x: T`, `x?: T`), or `null`. */
export function annotationOf(node: TSESTree.Node): TSESTree.TypeNode | null {
  const annotation = "typeAnnotation" in node ? node.typeAnnotation : undefined;
  if (!annotation || annotation.type !== AST_NODE_TYPES.TSTypeAnnotation) return null;
  return annotation.typeAnnotation;
}

/**
 * The name a declared type refers to (`Stripe` for `stripe: Stripe`, `ServiceBusReceivedMessage` for
 * `m: sb.ServiceBusReceivedMessage`), or `null` when the node has no annotation or it is not a plain reference.
 */
export function annotatedTypeName(node: TSESTree.Node): string | null {
  const type = annotationOf(node);
  if (!type) return null;
  if (type.type === AST_NODE_TYPES.TSTypeReference) {
    const name = type.typeName;
    if (name.type === AST_NODE_TYPES.Identifier) return name.name;
    if (name.type === AST_NODE_TYPES.TSQualifiedName) return name.right.name;
    return null;
  }
  if (type.type === AST_NODE_TYPES.TSAnyKeyword || type.type === AST_NODE_TYPES.TSUnknownKeyword) return null;
  return type.type;
}
