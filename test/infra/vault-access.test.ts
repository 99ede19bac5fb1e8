// Key Vault access per secret (issue 43 item 7): each consumer identity holds Key Vault Secrets User on the secrets
// its app references only, the nightly audit on its restricted key only, none on the whole vault; the policy names
// the vault-wide grant every identity held before, and a grant on a secret the identity's apps do not use.
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { stackArgs, type PolicyTarget } from "../../infra/plan/policy-args.js";
import { planStack, type Plan } from "../../infra/plan/run-plan.js";
import { vaultAccessPerSecret } from "../../infra/policy/vault-access-policies.js";
import { builtInRoles } from "../../infra/specs/index.js";
import { planTargets } from "./support/plan-targets.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
let prod: Plan;
beforeAll(async () => {
  prod = await planStack({ stack: "prod", cwd: root });
}, 60_000);

async function violations(subjects: PolicyTarget[]): Promise<string[]> {
  const messages: string[] = [];
  await vaultAccessPerSecret.validateStack(stackArgs(subjects), (message) => messages.push(message));
  return messages;
}
const vaultGrants = (subjects: PolicyTarget[]) =>
  subjects.filter((s) => s.type === "azure-native:authorization:RoleAssignment" && String(s.outputs.roleDefinitionId).endsWith(`/${builtInRoles.keyVaultSecretsUser}`));

describe("Key Vault access per secret", () => {
  it("grants each identity only the secrets it uses, in prod, and the policy passes the plan", async () => {
    const subjects = planTargets(prod);
    const identities = subjects.filter((s) => s.type === "azure-native:managedidentity:UserAssignedIdentity");
    const holder = (grant: PolicyTarget) => String(identities.find((i) => i.outputs.principalId === grant.outputs.principalId)?.outputs.resourceName);
    expect(vaultGrants(subjects).map((g) => `${holder(g)} ${String(g.outputs.scope).split("/").slice(-3).join("/")}`).sort()).toEqual([
      "id-chargeguard-audit kv-billing-prod-cg/secrets/stripe-audit-key",
      "id-invoice-settlement-consumer kv-billing-prod-cg/secrets/stripe-api-key",
      "id-usage-billing-consumer kv-billing-prod-cg/secrets/stripe-api-key",
    ]);
    expect(await violations(subjects)).toEqual([]);
    // The plan's secrets say each consumer reads its key by that grant.
    expect(prod.report.secrets[0]?.readers.every((reader) => reader.granted)).toBe(true);
  });

  it("refuses the vault-wide grant every identity held before, and a grant on a secret the identity does not use", async () => {
    const subjects = planTargets(prod);
    const grants = vaultGrants(subjects);
    const vaultId = String(grants[0]!.outputs.scope).replace(/\/secrets\/[^/]+$/, "");
    const audit = grants.find((g) => String(g.outputs.scope).endsWith("/stripe-audit-key"))!;
    const consumer = grants.find((g) => String(g.outputs.scope).endsWith("/stripe-api-key"))!;
    consumer.outputs.scope = vaultId;
    audit.outputs.scope = `${vaultId}/secrets/stripe-api-key`;
    expect(await violations(subjects)).toEqual([
      expect.stringMatching(/^id-(usage-billing|invoice-settlement)-consumer: Key Vault Secrets User on the whole vault kv-billing-prod-cg: grant it on each secret it uses/),
      "id-chargeguard-audit: reads secret kv-billing-prod-cg/stripe-api-key that none of its apps or jobs references: remove the grant",
    ]);
  });
});
