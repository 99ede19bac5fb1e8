import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import { bindingOf } from "./binding.js";
import { staticName } from "./static-name.js";
import { unwrap } from "./unwrap.js";
import { isFunction, walk, type FunctionNode } from "./walk.js";

/**
 * The same-file function a call runs, when it can be known without types: a function declaration, a
 * function bound to a never-reassigned name, `this.method()` inside a class, `ClassName.method()`, or a method
 * of a `const` object literal.
 */
export function calledFunction(sourceCode: Readonly<TSESLint.SourceCode>, callee: TSESTree.Node): FunctionNode | null {
  return functionValue(sourceCode, unwrap(callee), 0);
}

function functionValue(sourceCode: Readonly<TSESLint.SourceCode>, node: TSESTree.Node, depth: number): FunctionNode | null {
  if (depth > 8) return null;
  if (isFunction(node)) return node;
  if (node.type === AST_NODE_TYPES.Identifier) {
    const binding = bindingOf(sourceCode, node);
    if (!binding) return null;
    const { definition } = binding;
    if (definition.type === "FunctionName" && isFunction(definition.node)) return definition.node;
    if (
      definition.type === "Variable" &&
      definition.node.type === AST_NODE_TYPES.VariableDeclarator &&
      definition.node.id.type === AST_NODE_TYPES.Identifier &&
      definition.node.init
    ) {
      return functionValue(sourceCode, unwrap(definition.node.init), depth + 1);
    }
    return null;
  }
  if (node.type === AST_NODE_TYPES.MemberExpression) {
    const name = staticName(node);
    if (name === null) return null;
    const owner = memberOwner(sourceCode, unwrap(node.object));
    if (!owner) return null;
    const member = owner.type === AST_NODE_TYPES.ClassBody ? classMember(owner, name, node.object.type !== AST_NODE_TYPES.ThisExpression) : objectMember(owner, name);
    return member ? functionValue(sourceCode, unwrap(member), depth + 1) : null;
  }
  return null;
}

/** The class body `this` refers to at `node`, or the class or object literal a name is bound to. */
function memberOwner(
  sourceCode: Readonly<TSESLint.SourceCode>,
  object: TSESTree.Node,
): TSESTree.ClassBody | TSESTree.ObjectExpression | null {
  if (object.type === AST_NODE_TYPES.ThisExpression) return enclosingClassBody(object);
  if (object.type !== AST_NODE_TYPES.Identifier) return null;
  const binding = bindingOf(sourceCode, object);
  if (!binding) return null;
  const { definition } = binding;
  if (definition.type === "ClassName" && definition.node.type === AST_NODE_TYPES.ClassDeclaration) return definition.node.body;
  if (definition.type === "Variable" && definition.node.type === AST_NODE_TYPES.VariableDeclarator && definition.node.init) {
    const init = unwrap(definition.node.init);
    if (init.type === AST_NODE_TYPES.ObjectExpression) return init;
    if (init.type === AST_NODE_TYPES.ClassExpression) return init.body;
  }
  return null;
}

/** The class whose instance `this` is at `node`: arrow functions keep the outer `this`, other functions do not. */
export function enclosingClassBody(node: TSESTree.Node): TSESTree.ClassBody | null {
  let current: TSESTree.Node | undefined = node.parent;
  while (current) {
    if (current.type === AST_NODE_TYPES.ClassBody) return current;
    if (current.type === AST_NODE_TYPES.FunctionExpression || current.type === AST_NODE_TYPES.FunctionDeclaration) {
      const parent = current.parent;
      if (parent?.type === AST_NODE_TYPES.MethodDefinition || parent?.type === AST_NODE_TYPES.PropertyDefinition) {
        return parent.parent;
      }
      return null;
    }
    current = current.parent;
  }
  return null;
}

/** A class member's value: a method, or a field initialiser. */
function classMember(body: TSESTree.ClassBody, name: string, isStatic: boolean): TSESTree.Node | null {
  for (const member of body.body) {
    if (member.type !== AST_NODE_TYPES.MethodDefinition && member.type !== AST_NODE_TYPES.PropertyDefinition) continue;
    if (member.static !== isStatic || staticName(member) !== name) continue;
    if (member.type === AST_NODE_TYPES.MethodDefinition && member.kind !== "method") continue;
    if (member.value) return member.value;
  }
  return null;
}

function objectMember(object: TSESTree.ObjectExpression, name: string): TSESTree.Node | null {
  let found: TSESTree.Node | null = null;
  for (const property of object.properties) {
    if (property.type === AST_NODE_TYPES.Property && staticName(property) === name) found = property.value;
  }
  return found;
}

const returnsCache = new WeakMap<FunctionNode, TSESTree.Expression[]>();

/** The expressions a function can return (an arrow's expression body, or its `return` arguments). */
export function returnedExpressions(sourceCode: Readonly<TSESLint.SourceCode>, fn: FunctionNode): TSESTree.Expression[] {
  const cached = returnsCache.get(fn);
  if (cached) return cached;
  const returns: TSESTree.Expression[] = [];
  if (fn.body.type !== AST_NODE_TYPES.BlockStatement) {
    returns.push(fn.body);
  } else {
    walk(sourceCode, fn.body, (node) => {
      if (node !== fn.body && isFunction(node)) return false;
      if (node.type === AST_NODE_TYPES.ReturnStatement && node.argument) returns.push(node.argument);
      return undefined;
    });
  }
  returnsCache.set(fn, returns);
  return returns;
}
