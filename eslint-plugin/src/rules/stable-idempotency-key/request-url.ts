import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";

/**
 * Whether a bare `Idempotency-Key` header may go to Stripe (#42). A header written in a request whose address is
 * written out and names no Stripe host (`fetch(\`${ACCOUNTS_URL}/v1/invoiced\`, { headers })`) goes to the team's own
 * API, whose keys are its own business: not reported. An address that mentions Stripe (`https://api.stripe.com/...`,
 * `${STRIPE_API}/v1/charges`), or one held in a variable the rule cannot read, may reach Stripe: checked as before.
 */
export function mayReachStripe(sourceCode: Readonly<TSESLint.SourceCode>, header: TSESTree.Property): boolean {
  const request = enclosingRequest(header);
  const url = request?.arguments[0];
  if (!url || /stripe/i.test(sourceCode.getText(url))) return true;
  return url.type !== AST_NODE_TYPES.Literal && url.type !== AST_NODE_TYPES.TemplateLiteral;
}

/** The call whose options hold the header: `fetch(url, { headers: { ... } })`, `axios.post(url, body, { headers })`. */
function enclosingRequest(header: TSESTree.Node): TSESTree.CallExpression | null {
  let node: TSESTree.Node | undefined = header.parent;
  while (node && (node.type === AST_NODE_TYPES.ObjectExpression || node.type === AST_NODE_TYPES.Property)) node = node.parent;
  return node?.type === AST_NODE_TYPES.CallExpression ? node : null;
}
