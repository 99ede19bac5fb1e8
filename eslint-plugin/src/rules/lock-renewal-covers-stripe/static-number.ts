import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import { bindingOf } from "../../utils/binding.js";
import { staticName } from "../../utils/static-name.js";
import { unwrap } from "../../utils/unwrap.js";

/**
 * A number the code fixes without running: numeric literals, arithmetic, never-reassigned `const`s, members of
 * `const` object literals (`TUNING.lockMs`), `Math.min/max/ceil/floor/round`. `null` when any part is unknown.
 */
export function staticNumber(sourceCode: Readonly<TSESLint.SourceCode>, node: TSESTree.Node, depth = 0): number | null {
  if (depth > 16) return null;
  const target = unwrap(node);
  switch (target.type) {
    case AST_NODE_TYPES.Literal:
      return typeof target.value === "number" ? target.value : null;
    case AST_NODE_TYPES.UnaryExpression: {
      const value = staticNumber(sourceCode, target.argument, depth + 1);
      if (value === null) return null;
      return target.operator === "-" ? -value : target.operator === "+" ? value : null;
    }
    case AST_NODE_TYPES.BinaryExpression: {
      if (target.left.type === AST_NODE_TYPES.PrivateIdentifier) return null;
      const left = staticNumber(sourceCode, target.left, depth + 1);
      const right = staticNumber(sourceCode, target.right, depth + 1);
      if (left === null || right === null) return null;
      return arithmetic(target.operator, left, right);
    }
    case AST_NODE_TYPES.Identifier:
      return initialiser(sourceCode, target, (init) => staticNumber(sourceCode, init, depth + 1));
    case AST_NODE_TYPES.MemberExpression: {
      const name = staticName(target);
      const object = unwrap(target.object);
      if (name === null || object.type !== AST_NODE_TYPES.Identifier) return null;
      return initialiser(sourceCode, object, (init) => {
        const literal = unwrap(init);
        if (literal.type !== AST_NODE_TYPES.ObjectExpression) return null;
        const property = literal.properties.find(
          (candidate): candidate is TSESTree.Property => candidate.type === AST_NODE_TYPES.Property && staticName(candidate) === name,
        );
        return property ? staticNumber(sourceCode, property.value, depth + 1) : null;
      });
    }
    case AST_NODE_TYPES.CallExpression: {
      const callee = target.callee;
      if (callee.type !== AST_NODE_TYPES.MemberExpression || callee.object.type !== AST_NODE_TYPES.Identifier || callee.object.name !== "Math") {
        return null;
      }
      const values = target.arguments.map((argument) => staticNumber(sourceCode, argument, depth + 1));
      if (values.some((value) => value === null)) return null;
      const numbers = values as number[];
      const fn: ((...values: number[]) => number) | undefined = MATH[staticName(callee) ?? ""];
      return fn ? fn(...numbers) : null;
    }
    default:
      return null;
  }
}

const MATH: Record<string, (...values: number[]) => number> = {
  min: Math.min,
  max: Math.max,
  ceil: (value = NaN) => Math.ceil(value),
  floor: (value = NaN) => Math.floor(value),
  round: (value = NaN) => Math.round(value),
};

function initialiser(
  sourceCode: Readonly<TSESLint.SourceCode>,
  identifier: TSESTree.Identifier,
  evaluate: (init: TSESTree.Expression) => number | null,
): number | null {
  const declarator = bindingOf(sourceCode, identifier)?.definition.node;
  if (declarator?.type !== AST_NODE_TYPES.VariableDeclarator || declarator.id.type !== AST_NODE_TYPES.Identifier || !declarator.init) {
    return null;
  }
  return evaluate(declarator.init);
}

function arithmetic(operator: string, left: number, right: number): number | null {
  switch (operator) {
    case "+":
      return left + right;
    case "-":
      return left - right;
    case "*":
      return left * right;
    case "/":
      return right === 0 ? null : left / right;
    case "%":
      return right === 0 ? null : left % right;
    case "**":
      return left ** right;
    default:
      return null;
  }
}
