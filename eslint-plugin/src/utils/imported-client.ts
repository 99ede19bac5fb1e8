import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "./analysis.js";
import { bindingOf } from "./binding.js";
import { enclosingClassBody } from "./local-function.js";
import { localModuleFacts, type StripeModuleFacts } from "./local-module.js";
import { moduleOrigin } from "./module-origin.js";
import { staticName } from "./static-name.js";
import { annotationOf } from "./type-annotation.js";
import { unwrap } from "./unwrap.js";

/** A name imported from a module of the project: its facts and the name it has there (`default` for a default import). */
export interface LocalImport {
  facts: StripeModuleFacts;
  exported: string;
}

/** What a project import (relative or a path alias) binds `name` to, or `null` for a local name, a package or a file not on disk. */
export function localImportOf(analysis: Analysis, name: TSESTree.Identifier): LocalImport | null {
  const origin = moduleOrigin(analysis.sourceCode, name);
  if (!origin || origin.module === "<global>" || origin.path.length > 1) return null;
  const facts = localModuleFacts(analysis.filename, origin.module);
  return facts ? { facts, exported: origin.path[0] ?? "default" } : null;
}

/**
 * The receiver of a Stripe-like call reaches back to a module of the project that uses the `stripe` package: the
 * root of `payments.charges` is imported from it (or from a module named after Stripe that the file cannot read, such
 * as a path alias `@/lib/stripe`), or `this.gateway.client.invoiceItems` belongs to a field injected with a type
 * imported from it. The same strength of evidence as a file that imports `stripe` itself, one import
 * further away: it does not outweigh a type the file declares as something else.
 */
export function reachesStripeModule(analysis: Analysis, client: TSESTree.Node): boolean {
  let target = unwrap(client);
  while (target.type === AST_NODE_TYPES.MemberExpression) {
    const object = unwrap(target.object);
    if (object.type === AST_NODE_TYPES.ThisExpression) return fieldTypeUsesStripe(analysis, target);
    target = object;
  }
  if (target.type !== AST_NODE_TYPES.Identifier) return false;
  if (localImportOf(analysis, target)?.facts.usesStripe) return true;
  // A module the file cannot read but that is named after Stripe: `@/lib/stripe`, `~/services/stripe-client`.
  if (/stripe/i.test(moduleOrigin(analysis.sourceCode, target)?.module ?? "")) return true;
  const definition = bindingOf(analysis.sourceCode, target)?.definition;
  return definition ? typeUsesStripe(analysis, annotationOf(definition.name)) : false;
}

/** `this.gateway` declared as a field or constructor parameter property whose type comes from a Stripe module. */
function fieldTypeUsesStripe(analysis: Analysis, member: TSESTree.MemberExpression): boolean {
  const name = staticName(member);
  const body = enclosingClassBody(member);
  if (name === null || !body) return false;
  for (const element of body.body) {
    if (element.type === AST_NODE_TYPES.PropertyDefinition && staticName(element) === name) return typeUsesStripe(analysis, annotationOf(element));
    if (element.type !== AST_NODE_TYPES.MethodDefinition || element.kind !== "constructor") continue;
    for (const parameter of element.value.params) {
      if (parameter.type !== AST_NODE_TYPES.TSParameterProperty) continue;
      const inner = parameter.parameter.type === AST_NODE_TYPES.AssignmentPattern ? parameter.parameter.left : parameter.parameter;
      if (inner.type === AST_NODE_TYPES.Identifier && inner.name === name) return typeUsesStripe(analysis, annotationOf(inner));
    }
  }
  return false;
}

function typeUsesStripe(analysis: Analysis, type: TSESTree.TypeNode | null): boolean {
  if (type?.type !== AST_NODE_TYPES.TSTypeReference || type.typeName.type !== AST_NODE_TYPES.Identifier) return false;
  return localImportOf(analysis, type.typeName)?.facts.usesStripe ?? false;
}
