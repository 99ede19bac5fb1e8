import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import type { Analysis } from "./analysis.js";
import { variableOf } from "./binding.js";
import { isConditionalFor } from "./conditional-path.js";
import { staticName } from "./static-name.js";
import { unwrap } from "./unwrap.js";

type Argument = TSESTree.CallExpressionArgument;

/**
 * The argument lists a call with one spread of an array the file builds can receive: `const args = [params];
 * if (key) args.push({ idempotencyKey: key }); stripe.charges.create(...args)` gets `[params]` on one path and
 * `[params, { idempotencyKey }]` on the other. `null` when the call spreads nothing, or an array the file does not
 * fully show (a parameter, one passed elsewhere, reassigned, spliced): then its options are not knowable.
 */
export function spreadArgumentLists(analysis: Analysis, call: TSESTree.CallExpression): Argument[][] | null {
  const index = call.arguments.findIndex((argument) => argument.type === AST_NODE_TYPES.SpreadElement);
  const spread = call.arguments[index];
  if (spread?.type !== AST_NODE_TYPES.SpreadElement || call.arguments.slice(index + 1).some(isSpread)) return null;
  const target = unwrap(spread.argument);
  if (target.type !== AST_NODE_TYPES.Identifier) return null;
  const variable = variableOf(analysis.sourceCode, target);
  const declarator = variable?.defs.length === 1 ? variable.defs[0]?.node : undefined;
  if (!variable || declarator?.type !== AST_NODE_TYPES.VariableDeclarator || !declarator.init) return null;
  const init = unwrap(declarator.init);
  if (init.type !== AST_NODE_TYPES.ArrayExpression || init.elements.some((element) => !element || isSpread(element))) return null;
  const initial = init.elements as Argument[];
  const pushes: { values: Argument[]; conditional: boolean }[] = [];
  for (const reference of variable.references) {
    if (reference.init || reference.identifier === target) continue;
    const member = reference.identifier.parent;
    const push = member?.parent;
    const isPush =
      member?.type === AST_NODE_TYPES.MemberExpression &&
      member.object === reference.identifier &&
      staticName(member) === "push" &&
      push?.type === AST_NODE_TYPES.CallExpression &&
      push.callee === member &&
      !push.arguments.some(isSpread);
    if (!isPush) return null;
    pushes.push({ values: push.arguments, conditional: isConditionalFor(push, call) });
  }
  pushes.sort((a, b) => (a.values[0]?.range[0] ?? 0) - (b.values[0]?.range[0] ?? 0));
  const around = (list: Argument[]) => [...call.arguments.slice(0, index), ...list, ...call.arguments.slice(index + 1)];
  const always = around([...initial, ...pushes.filter((push) => !push.conditional).flatMap((push) => push.values)]);
  if (!pushes.some((push) => push.conditional)) return [always];
  return [always, around([...initial, ...pushes.flatMap((push) => push.values)])];
}

function isSpread(node: TSESTree.Node): boolean {
  return node.type === AST_NODE_TYPES.SpreadElement;
}
