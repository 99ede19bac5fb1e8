// Key Vault access per secret: an identity reads only the secrets it uses. A Key Vault Secrets User grant on the vault
// lets every consumer read the audit's key and every other consumer's, and the audit (documented as holding only a
// read-only key) read the consumers' write key; Key Vault RBAC takes a single secret as the scope. Plain policy
// objects; only type imports from @pulumi/policy.
import type { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { builtInRoles } from "../specs/index.js";
import { list, obj, ofType } from "./policy-helpers.js";
import { types } from "./resource-types.js";

const lower = (value: unknown) => String(value ?? "").toLowerCase();

/** The vault secrets an app or job references by Key Vault URL, as "<vault>/<secret>". */
function referencedSecrets(resource: PolicyResource): string[] {
  return list(obj(resource.props.configuration).secrets)
    .map((secret) => /^https:\/\/([^.]+)\.vault\.azure\.net\/secrets\/([^/]+)/i.exec(String(obj(secret).keyVaultUrl ?? "")))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => `${match[1]!.toLowerCase()}/${match[2]!.toLowerCase()}`);
}

/** "<vault>/<secret>" of a secret-scoped assignment, "<vault>/*" of a vault-scoped one, undefined otherwise. */
function grantedSecret(scope: string): string | undefined {
  const match = /\/providers\/Microsoft\.KeyVault\/vaults\/([^/]+)(?:\/secrets\/([^/]+))?$/i.exec(scope);
  return match ? `${match[1]!.toLowerCase()}/${(match[2] ?? "*").toLowerCase()}` : undefined;
}

export const vaultAccessPerSecret: StackValidationPolicy = {
  name: "vault-access-per-secret",
  description:
    "Key Vault Secrets User is granted on single secrets, never the vault, and each identity holds it only on the secrets its apps or jobs reference (a consumer its Stripe key, the nightly audit its restricted read key).",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    const identities = ofType(args, types.userAssignedIdentity);
    const users = [...ofType(args, types.containerApp), ...ofType(args, types.job)];
    const grants = ofType(args, types.roleAssignment).filter((grant) => lower(grant.props.roleDefinitionId).endsWith(`/${builtInRoles.keyVaultSecretsUser}`));
    for (const grant of grants) {
      const secret = grantedSecret(String(grant.props.scope));
      if (secret === undefined) continue;
      const identity = identities.find((candidate) => lower(candidate.props.principalId) === lower(grant.props.principalId));
      const who = String(identity?.props.resourceName ?? grant.props.principalId);
      if (secret.endsWith("/*")) {
        report(`${who}: Key Vault Secrets User on the whole vault ${secret.slice(0, -2)}: grant it on each secret it uses (scope <vault id>/secrets/<name>)`, grant.urn);
        continue;
      }
      // Phase one (bootstrap) grants before any app or job exists: judged once what uses the identity is planned.
      const attached = users.filter((user) => identity !== undefined && list(obj(user.props.identity).userAssignedIdentities).map(lower).includes(lower(identity.props.id)));
      if (attached.length > 0 && !attached.some((user) => referencedSecrets(user).includes(secret))) {
        report(`${who}: reads secret ${secret} that none of its apps or jobs references: remove the grant`, grant.urn);
      }
    }
  },
};
