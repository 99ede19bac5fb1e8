// The secrets the consumer apps read, as the plan reports them: where each lives, who may read it, which phase of the
// two-phase bootstrap the stack is in and what that run does about the secret, and what the operator must do. Names
// only: neither the program nor the plan ever reads or writes a secret's value, so there is none to print.
import { builtInRoles } from "../specs/index.js";
import type { StackConfig } from "../config/index.js";
import type { MockedResource } from "./azure-mocks.js";

export interface PlannedSecret {
  /** The Key Vault secret's name. */
  name: string;
  vault: string;
  /** The setting each app gets it as (a Key Vault reference, resolved by the app's identity). */
  env: string;
  /** The stack's phase: "bootstrap" (chargeguard:bootstrap true: no app yet) or "apps" (phase two and every later run). */
  phase: "bootstrap" | "apps";
  /** What this `pulumi up` does about the secret. */
  thisRun: string;
  /** Whether it is in the vault: not knowable offline; phase two's lookup is the check that stops `pulumi up`. */
  present: "unknown offline";
  /**
   * Each consumer identity that reads it, and whether the plan grants it Key Vault Secrets User on this secret (never
   * in phase one: the grant's scope is the secret, which the operator puts in between the phases).
   */
  readers: { identity: string; app: string; granted: boolean }[];
  /** The apps whose secrets reference it in this plan (none in the bootstrap phase). */
  referencedBy: string[];
  /** What the operator does, in order. */
  operator: string;
}

const lower = (value: unknown) => String(value).toLowerCase();
const ofType = (mocked: readonly MockedResource[], type: string) => mocked.filter((r) => r.custom && r.type === `azure-native:${type}`);

/** Each consumer identity, and whether it holds Key Vault Secrets User on this secret (its own scope, not the vault's). */
function readersOf(config: StackConfig, mocked: readonly MockedResource[], secretId: string): PlannedSecret["readers"] {
  const identities = ofType(mocked, "managedidentity:UserAssignedIdentity");
  const grants = ofType(mocked, "authorization:RoleAssignment").filter(
    (grant) => lower(grant.inputs.scope) === lower(secretId) && String(grant.inputs.roleDefinitionId).endsWith(`/${builtInRoles.keyVaultSecretsUser}`),
  );
  return (config.app?.consumers ?? []).map((consumer) => {
    const identity = identities.find((r) => r.inputs.resourceName === consumer.identityName);
    const granted = identity !== undefined && grants.some((grant) => grant.inputs.principalId === identity.state.principalId);
    return { identity: consumer.identityName, app: consumer.appName, granted };
  });
}

function referencedBy(mocked: readonly MockedResource[], vault: string, secret: string): string[] {
  const url = `https://${vault}.vault.azure.net/secrets/${secret}`;
  return ofType(mocked, "app:ContainerApp")
    .filter((app) => {
      const secrets = (app.inputs.configuration as { secrets?: { keyVaultUrl?: unknown }[] } | undefined)?.secrets ?? [];
      return secrets.some((entry) => entry.keyVaultUrl === url);
    })
    .map((app) => String(app.inputs.containerAppName));
}

function operatorStep(config: StackConfig, vault: string, secret: string): string {
  const set = `az keyvault secret set --vault-name ${vault} --name ${secret} --file <file holding the key>`;
  const where = config.network
    ? "from inside the VNet (a jump host, or Cloud Shell deployed into it: the vault's data plane is private)"
    : "from your machine (the vault is public)";
  const then = config.bootstrap ? "then set chargeguard:bootstrap false and run `pulumi up` again (phase two)" : "then run `pulumi up`; a rotation is another `secret set` (the apps read it versionless)";
  return `with Key Vault Secrets Officer on ${vault}, ${where}: ${set} (never the key on the command line); ${then}.`;
}

/** The apps' secrets in this plan (empty without a vault or consumer apps). */
export function plannedSecrets(config: StackConfig, mocked: readonly MockedResource[]): PlannedSecret[] {
  if (!config.vault || !config.app || config.app.consumers.length === 0) return [];
  const vault = config.vault.name;
  const vaultId = ofType(mocked, "keyvault:Vault").find((r) => r.inputs.vaultName === vault)?.id;
  const wanted = [
    { name: config.vault.secrets.stripeApiKey, env: "STRIPE_API_KEY" },
    ...(config.vault.secrets.keybrakeApiKey === undefined ? [] : [{ name: config.vault.secrets.keybrakeApiKey, env: "KEYBRAKE_API_KEY" }]),
  ];
  return wanted.map(({ name, env }) => ({
    name,
    vault,
    env,
    phase: config.bootstrap ? "bootstrap" : "apps",
    thisRun: config.bootstrap
      ? `phase one of two: creates vault ${vault}${config.network ? " and its private endpoint" : ""} and each reader's identity; sets no value, grants no reader the secret yet (the grant's scope is the secret itself) and creates no app`
      : `looks ${name} up through Azure Resource Manager (its metadata, never its value) before creating any grant or app, and stops naming it when it is absent; then grants each reader Key Vault Secrets User on this secret alone, and each app references it versionless through its own identity`,
    present: "unknown offline",
    readers: readersOf(config, mocked, `${vaultId}/secrets/${name}`),
    referencedBy: referencedBy(mocked, vault, name),
    operator: operatorStep(config, vault, name),
  }));
}
