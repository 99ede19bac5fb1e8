// The stack's nightly audit (infra/components/audit-job.ts): its identity and AcrPull with the consumers' in phase one;
// in phase two, once its restricted key is in the vault (looked up like theirs), Key Vault Secrets User on that key
// and the job itself with the apps.
import type * as pulumi from "@pulumi/pulumi";
import { AuditIdentity, AuditJob } from "../components/audit-job.js";
import type { BillingSecrets } from "../components/billing-secrets.js";
import { presentSecret } from "./secret-lookup.js";
import type { StackContext } from "./stack-context.js";

export const AUDIT_JOB_NAME = "chargeguard-audit";

export function buildAuditIdentity({ config, resourceGroupName, location, tags }: StackContext, secrets: BillingSecrets | undefined): AuditIdentity | undefined {
  if (!config.app || !secrets) return undefined;
  return new AuditIdentity("audit-identity", {
    resourceGroupName,
    location,
    identityName: `id-${AUDIT_JOB_NAME}`,
    ...(config.vault && !config.bootstrap ? { auditKeyId: presentSecret(config, secrets, config.vault.secrets.stripeAuditKey).id } : {}),
    ...(config.app.registry ? { registryId: config.app.registry.resourceId } : {}),
    tags,
  });
}

export interface AuditJobInputs {
  identity: AuditIdentity;
  environmentId: pulumi.Input<string>;
  stripeKeyUrl: pulumi.Input<string>;
  actionGroupId?: pulumi.Input<string> | undefined;
  dependsOn: pulumi.Resource[];
}

export function buildAuditJob({ config, resourceGroupName, location, tags }: StackContext, inputs: AuditJobInputs): AuditJob | undefined {
  if (!config.app) return undefined;
  return new AuditJob(AUDIT_JOB_NAME, {
    resourceGroupName,
    location,
    jobName: AUDIT_JOB_NAME,
    environmentId: inputs.environmentId,
    identity: inputs.identity,
    image: config.app.audit.image,
    ...(config.app.registry ? { registryServer: config.app.registry.server } : {}),
    schedule: config.app.audit.schedule,
    stripeKeyUrl: inputs.stripeKeyUrl,
    ...(inputs.actionGroupId !== undefined ? { actionGroupId: inputs.actionGroupId } : {}),
    // A double charge is money taken twice: as urgent as a dead letter.
    severity: config.alerts.severities.deadLettered,
    tags,
    dependsOn: inputs.dependsOn,
  });
}
