import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import { bindingOf } from "./binding.js";

/** A type the file itself declares: a class, an interface or a type alias. */
export type TypeDeclaration =
  | TSESTree.ClassDeclaration
  | TSESTree.ClassExpression
  | TSESTree.TSInterfaceDeclaration
  | TSESTree.TSTypeAliasDeclaration;

/** The identifier a type reference names (`Billing` in `Billing`, `Billing<T>`), or `null` for other type nodes. */
export function referencedTypeName(type: TSESTree.TypeNode): TSESTree.Identifier | null {
  return type.type === AST_NODE_TYPES.TSTypeReference && type.typeName.type === AST_NODE_TYPES.Identifier ? type.typeName : null;
}

/** The same-file declaration a type or class name is bound to. */
export function typeDeclarationOf(sourceCode: Readonly<TSESLint.SourceCode>, name: TSESTree.Identifier): TypeDeclaration | null {
  const definition = bindingOf(sourceCode, name)?.definition;
  if (!definition) return null;
  const node = definition.node as TSESTree.Node;
  switch (node.type) {
    case AST_NODE_TYPES.ClassDeclaration:
    case AST_NODE_TYPES.TSInterfaceDeclaration:
    case AST_NODE_TYPES.TSTypeAliasDeclaration:
      return node;
    case AST_NODE_TYPES.VariableDeclarator:
      return node.init?.type === AST_NODE_TYPES.ClassExpression ? node.init : null;
    default:
      return null;
  }
}

/** The classes of the file that `implements` an interface (a provider injected by its interface). */
export function implementationsOf(sourceCode: Readonly<TSESLint.SourceCode>, name: string): TSESTree.ClassDeclaration[] {
  const found: TSESTree.ClassDeclaration[] = [];
  for (const statement of sourceCode.ast.body) {
    const declaration =
      statement.type === AST_NODE_TYPES.ExportNamedDeclaration || statement.type === AST_NODE_TYPES.ExportDefaultDeclaration
        ? statement.declaration
        : statement;
    if (declaration?.type !== AST_NODE_TYPES.ClassDeclaration) continue;
    const implemented = (declaration.implements ?? []).some(
      (clause) => clause.expression.type === AST_NODE_TYPES.Identifier && clause.expression.name === name,
    );
    if (implemented) found.push(declaration);
  }
  return found;
}
