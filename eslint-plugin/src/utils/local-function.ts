import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "./analysis.js";
import { bindingOf } from "./binding.js";
import { enclosingFunction, fileIndex, within } from "./file-index.js";
import { staticName } from "./static-name.js";
import { annotationOf } from "./type-annotation.js";
import { implementationsOf, referencedTypeName, typeDeclarationOf } from "./type-declaration.js";
import { unwrap } from "./unwrap.js";
import { isFunction, walk, type FunctionNode } from "./walk.js";

/**
 * The same-file function a call runs. Without types: a function declaration, a function bound to a
 * never-reassigned name, `this.method()` inside a class, `ClassName.method()`, a method of a `const` object
 * literal, and a method of a same-file class reached through an instance: `new Billing()`, a variable, parameter
 * or field typed with the class (or with an interface one class of the file implements), an injected constructor
 * parameter (`constructor(private billing: BillingService)`), inherited methods included. With types, the checker
 * resolves what the syntax cannot (a factory's result, an inferred type).
 */
export function calledFunction(analysis: Analysis, callee: TSESTree.Node): FunctionNode | null {
  const target = unwrap(callee);
  // `pool.query`, `JSON.stringify`, `receiver.completeMessage`: a name the file declares nothing under.
  const name = target.type === AST_NODE_TYPES.Identifier ? target.name : target.type === AST_NODE_TYPES.MemberExpression ? staticName(target) : null;
  if (name !== null && !fileIndex(analysis.sourceCode).declaredNames.has(name)) return null;
  return analysis.memo(
    "called-function",
    target,
    () => functionValue(analysis.sourceCode, target, 0) ?? typedFunction(analysis, target),
    null,
  );
}

type SourceCode = Readonly<TSESLint.SourceCode>;

/** What `x` in `x.method()` is: a class (its instances or its statics) or an object literal. */
type Owner = { kind: "class"; body: TSESTree.ClassBody; isStatic: boolean } | { kind: "object"; node: TSESTree.ObjectExpression };

function functionValue(sourceCode: SourceCode, node: TSESTree.Node, depth: number): FunctionNode | null {
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
    const owner = assertedOwner(sourceCode, node.object) ?? memberOwner(sourceCode, unwrap(node.object), depth);
    if (!owner) return null;
    const member = owner.kind === "class" ? classMember(sourceCode, owner.body, name, owner.isStatic) : objectMember(owner.node, name);
    return member ? functionValue(sourceCode, unwrap(member), depth + 1) : null;
  }
  return null;
}

function memberOwner(sourceCode: SourceCode, object: TSESTree.Node, depth: number): Owner | null {
  if (object.type === AST_NODE_TYPES.ThisExpression) {
    const body = enclosingClassBody(object);
    return body ? { kind: "class", body, isStatic: isInStaticMember(object, body) } : null;
  }
  if (object.type === AST_NODE_TYPES.NewExpression) return instanceOf(classOfValue(sourceCode, object.callee));
  if (object.type === AST_NODE_TYPES.MemberExpression && object.object.type === AST_NODE_TYPES.ThisExpression) {
    return instanceOf(fieldClass(sourceCode, object));
  }
  if (object.type !== AST_NODE_TYPES.Identifier || depth > 8) return null;
  const binding = bindingOf(sourceCode, object);
  if (!binding) return null;
  const { definition } = binding;
  if (definition.type === "ClassName" && definition.node.type === AST_NODE_TYPES.ClassDeclaration) {
    return { kind: "class", body: definition.node.body, isStatic: true };
  }
  const declared = annotationOf(definition.name);
  if (declared) return instanceOf(classOfType(sourceCode, declared));
  if (definition.type === "Variable" && definition.node.type === AST_NODE_TYPES.VariableDeclarator && definition.node.init) {
    const init = unwrap(definition.node.init);
    if (init.type === AST_NODE_TYPES.ObjectExpression) return { kind: "object", node: init };
    if (init.type === AST_NODE_TYPES.ClassExpression) return { kind: "class", body: init.body, isStatic: true };
    if (definition.node.id.type === AST_NODE_TYPES.Identifier) return memberOwner(sourceCode, init, depth + 1);
  }
  return null;
}

/** `(x as BillingService).charge()`: the asserted type names the class. */
function assertedOwner(sourceCode: SourceCode, object: TSESTree.Node): Owner | null {
  if (object.type !== AST_NODE_TYPES.TSAsExpression && object.type !== AST_NODE_TYPES.TSSatisfiesExpression) return null;
  return instanceOf(classOfType(sourceCode, object.typeAnnotation));
}

function instanceOf(body: TSESTree.ClassBody | null): Owner | null {
  return body ? { kind: "class", body, isStatic: false } : null;
}

/** The same-file class a constructor expression names. */
function classOfValue(sourceCode: SourceCode, callee: TSESTree.Node): TSESTree.ClassBody | null {
  const target = unwrap(callee);
  if (target.type === AST_NODE_TYPES.ClassExpression) return target.body;
  if (target.type !== AST_NODE_TYPES.Identifier) return null;
  const declaration = typeDeclarationOf(sourceCode, target);
  return declaration?.type === AST_NODE_TYPES.ClassDeclaration || declaration?.type === AST_NODE_TYPES.ClassExpression ? declaration.body : null;
}

/** The same-file class a type names: the class itself, or the one class of the file that implements an interface. */
function classOfType(sourceCode: SourceCode, type: TSESTree.TypeNode): TSESTree.ClassBody | null {
  const name = referencedTypeName(type);
  if (!name) return null;
  const declaration = typeDeclarationOf(sourceCode, name);
  if (declaration?.type === AST_NODE_TYPES.ClassDeclaration || declaration?.type === AST_NODE_TYPES.ClassExpression) return declaration.body;
  if (declaration?.type === AST_NODE_TYPES.TSInterfaceDeclaration) {
    const implementations = implementationsOf(sourceCode, name.name);
    return implementations.length === 1 ? implementations[0]!.body : null;
  }
  return null;
}

/** `this.billing`: the class of what the field holds (initialiser, declared type, injected or assigned in the constructor). */
function fieldClass(sourceCode: SourceCode, member: TSESTree.MemberExpression): TSESTree.ClassBody | null {
  const name = staticName(member);
  const body = enclosingClassBody(member);
  if (name === null || !body) return null;
  // Every `this.pool.query()` of a class asks about the same field: answer once per class and field.
  let perClass = fieldClasses.get(body);
  if (!perClass) fieldClasses.set(body, (perClass = new Map()));
  if (perClass.has(name)) return perClass.get(name) ?? null;
  perClass.set(name, null); // a field assigned from itself sees "unknown" instead of recursing
  const found = fieldClassOf(sourceCode, body, name);
  perClass.set(name, found);
  return found;
}

const fieldClasses = new WeakMap<TSESTree.ClassBody, Map<string, TSESTree.ClassBody | null>>();

function fieldClassOf(sourceCode: SourceCode, body: TSESTree.ClassBody, name: string): TSESTree.ClassBody | null {
  for (const element of body.body) {
    if (element.type === AST_NODE_TYPES.PropertyDefinition && !element.static && staticName(element) === name) {
      if (element.value) {
        const value = unwrap(element.value);
        if (value.type === AST_NODE_TYPES.NewExpression) return classOfValue(sourceCode, value.callee);
      }
      const declared = annotationOf(element);
      const declaredClass = declared ? classOfType(sourceCode, declared) : null;
      if (declaredClass) return declaredClass;
    }
    if (element.type === AST_NODE_TYPES.MethodDefinition && element.kind === "constructor" && element.value.type === AST_NODE_TYPES.FunctionExpression) {
      const found = constructorFieldClass(sourceCode, element.value, name);
      if (found) return found;
    }
  }
  return null;
}

function constructorFieldClass(sourceCode: SourceCode, constructor: TSESTree.FunctionExpression, name: string): TSESTree.ClassBody | null {
  for (const parameter of constructor.params) {
    if (parameter.type !== AST_NODE_TYPES.TSParameterProperty) continue;
    const inner = parameter.parameter.type === AST_NODE_TYPES.AssignmentPattern ? parameter.parameter.left : parameter.parameter;
    if (inner.type === AST_NODE_TYPES.Identifier && inner.name === name) {
      const declared = annotationOf(inner);
      return declared ? classOfType(sourceCode, declared) : null;
    }
  }
  let found: TSESTree.ClassBody | null = null;
  walk(sourceCode, constructor.body, (node) => {
    if (found) return false;
    if (
      node.type === AST_NODE_TYPES.AssignmentExpression &&
      node.left.type === AST_NODE_TYPES.MemberExpression &&
      node.left.object.type === AST_NODE_TYPES.ThisExpression &&
      staticName(node.left) === name
    ) {
      const owner = memberOwner(sourceCode, unwrap(node.right), 1);
      if (owner?.kind === "class" && !owner.isStatic) found = owner.body;
    }
    return undefined;
  });
  return found;
}

function isInStaticMember(node: TSESTree.Node, body: TSESTree.ClassBody): boolean {
  for (let current: TSESTree.Node | undefined = node; current && current !== body; current = current.parent) {
    if ((current.type === AST_NODE_TYPES.MethodDefinition || current.type === AST_NODE_TYPES.PropertyDefinition) && current.parent === body) {
      return current.static;
    }
  }
  return false;
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

/** A class member's value (a method, or a field initialiser), looking into same-file superclasses. */
function classMember(sourceCode: SourceCode, body: TSESTree.ClassBody, name: string, isStatic: boolean, depth = 0): TSESTree.Node | null {
  for (const member of body.body) {
    if (member.type !== AST_NODE_TYPES.MethodDefinition && member.type !== AST_NODE_TYPES.PropertyDefinition) continue;
    if (member.static !== isStatic || staticName(member) !== name) continue;
    if (member.type === AST_NODE_TYPES.MethodDefinition && member.kind !== "method") continue;
    if (member.value) return member.value;
  }
  const superClass = body.parent.superClass;
  if (!superClass || depth > 4) return null;
  const parent = classOfValue(sourceCode, superClass);
  return parent ? classMember(sourceCode, parent, name, isStatic, depth + 1) : null;
}

function objectMember(object: TSESTree.ObjectExpression, name: string): TSESTree.Node | null {
  let found: TSESTree.Node | null = null;
  for (const property of object.properties) {
    if (property.type === AST_NODE_TYPES.Property && staticName(property) === name) found = property.value;
  }
  return found;
}

/** The checker's answer: the same-file declaration the callee's symbol has, when it is a function. */
function typedFunction(analysis: Analysis, callee: TSESTree.Node): FunctionNode | null {
  if (!analysis.oracle) return null;
  if (callee.type !== AST_NODE_TYPES.MemberExpression && callee.type !== AST_NODE_TYPES.Identifier) return null;
  for (const declaration of analysis.oracle.declarationsOf(callee)) {
    switch (declaration.type) {
      case AST_NODE_TYPES.MethodDefinition:
        return declaration.value.type === AST_NODE_TYPES.FunctionExpression ? declaration.value : null;
      case AST_NODE_TYPES.FunctionDeclaration:
        return declaration;
      case AST_NODE_TYPES.PropertyDefinition:
      case AST_NODE_TYPES.Property:
      case AST_NODE_TYPES.VariableDeclarator: {
        const value = declaration.type === AST_NODE_TYPES.VariableDeclarator ? declaration.init : declaration.value;
        const fn = value ? unwrap(value) : null;
        if (fn && isFunction(fn)) return fn;
        break;
      }
      default:
        break;
    }
  }
  return null;
}

const returnsCache = new WeakMap<FunctionNode, TSESTree.Expression[]>();

/** The expressions a function can return (an arrow's expression body, or its `return` arguments). */
export function returnedExpressions(sourceCode: SourceCode, fn: FunctionNode): TSESTree.Expression[] {
  const cached = returnsCache.get(fn);
  if (cached) return cached;
  const returns: TSESTree.Expression[] = [];
  if (fn.body.type !== AST_NODE_TYPES.BlockStatement) {
    returns.push(fn.body);
  } else {
    // The file's `return` statements inside the body that belong to this function, not to a callback in it.
    for (const statement of within(fileIndex(sourceCode).returns, fn.body)) {
      if (statement.argument && enclosingFunction(statement) === fn) returns.push(statement.argument);
    }
  }
  returnsCache.set(fn, returns);
  return returns;
}
