// The nightly double-charge audit: `chargeguard audit` as a Container Apps Job on a schedule, in the consumers'
// environment, so a duplicate charge from any system sharing the Stripe account is seen the next morning. Its own
// user-assigned identity (Key Vault Secrets User on its key alone, AcrPull on the registry), its own Stripe key: a
// restricted read-only key (rk_...) in the vault, never the consumers' write key, and never --refund: refunds stay a
// person's decision after review (infra/README.md, "The nightly audit"). The audit exits 1 when it finds duplicates,
// so the execution counts as Failed: a metric alert on the job's Executions (state Failed) reports it.
import * as pulumi from "@pulumi/pulumi";
import { Job } from "@pulumi/azure-native/app/index.js";
import { UserAssignedIdentity } from "@pulumi/azure-native/managedidentity/index.js";
import { MetricAlert } from "@pulumi/azure-native/monitor/index.js";
import type { RoleAssignment } from "@pulumi/azure-native/authorization/index.js";
import { builtInRoles } from "../specs/index.js";
import { identityRoleAssignment } from "./identity-role-assignment.js";

/** What the job runs: the audit, reporting as JSON in its log; no --refund, ever. */
export const AUDIT_COMMAND = ["npx", "--no-install", "chargeguard", "audit", "--format", "json"];

export interface AuditIdentityArgs {
  resourceGroupName: pulumi.Input<string>;
  location?: pulumi.Input<string>;
  identityName: string;
  /**
   * Its restricted read key's ARM id (phase two, once the key is in the vault): Key Vault Secrets User on that secret
   * alone, never the consumers' keys.
   */
  auditKeyId?: pulumi.Input<string>;
  registryId?: pulumi.Input<string>;
  tags?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

/** The audit's identity and AcrPull in phase one, like the consumers'; its key's grant once the key is there. */
export class AuditIdentity extends pulumi.ComponentResource {
  readonly identity: UserAssignedIdentity;
  readonly resourceId: pulumi.Output<string>;
  readonly grants: RoleAssignment[];

  constructor(name: string, args: AuditIdentityArgs, opts?: pulumi.ComponentResourceOptions) {
    super("chargeguard:infra:AuditIdentity", name, {}, opts);
    this.identity = new UserAssignedIdentity(name, { resourceGroupName: args.resourceGroupName, location: args.location, resourceName: args.identityName, tags: args.tags }, { parent: this });
    this.resourceId = this.identity.id;
    const grant = (key: string, roleGuid: string, scope: pulumi.Input<string>, why: string) =>
      identityRoleAssignment(`${name}-${key}`, { principalId: this.identity.principalId, roleGuid, scope, description: `chargeguard: ${why} for the audit job ${args.identityName}` }, { parent: this });
    this.grants = [
      ...(args.auditKeyId !== undefined
        ? [grant("vault-secret-audit-key", builtInRoles.keyVaultSecretsUser, args.auditKeyId, "Key Vault Secrets User on its restricted Stripe read key only")]
        : []),
      ...(args.registryId !== undefined ? [grant("acr-pull", builtInRoles.acrPull, args.registryId, "AcrPull")] : []),
    ];
    this.registerOutputs({ resourceId: this.resourceId });
  }
}

export interface AuditJobArgs {
  resourceGroupName: pulumi.Input<string>;
  location?: pulumi.Input<string>;
  jobName: string;
  environmentId: pulumi.Input<string>;
  identity: AuditIdentity;
  image: string;
  registryServer?: string;
  /** Cron, UTC. */
  schedule: string;
  /** Versionless URL of the restricted read key in the vault. */
  stripeKeyUrl: pulumi.Input<string>;
  actionGroupId?: pulumi.Input<string>;
  severity: number;
  tags?: Record<string, pulumi.Input<string>>;
  dependsOn?: pulumi.Resource[];
}

export class AuditJob extends pulumi.ComponentResource {
  readonly job: Job;
  readonly alert: MetricAlert;

  constructor(name: string, args: AuditJobArgs, opts?: pulumi.ComponentResourceOptions) {
    super("chargeguard:infra:AuditJob", name, {}, opts);
    const identity = args.identity.resourceId;
    this.job = new Job(
      name,
      {
        resourceGroupName: args.resourceGroupName,
        location: args.location,
        jobName: args.jobName,
        environmentId: args.environmentId,
        workloadProfileName: "Consumption",
        identity: { type: "UserAssigned", userAssignedIdentities: [identity] },
        configuration: {
          triggerType: "Schedule",
          scheduleTriggerConfig: { cronExpression: args.schedule, parallelism: 1, replicaCompletionCount: 1 },
          // An hour: a large account's audit at 10 requests/s; no retry, a failed run is reported, not repeated.
          replicaTimeout: 3600,
          replicaRetryLimit: 0,
          identitySettings: [{ identity, lifecycle: "Main" }],
          secrets: [{ name: "stripe-audit-key", keyVaultUrl: args.stripeKeyUrl, identity }],
          ...(args.registryServer ? { registries: [{ server: args.registryServer, identity }] } : {}),
        },
        template: {
          containers: [
            {
              name: "audit",
              image: args.image,
              command: AUDIT_COMMAND,
              resources: { cpu: 0.5, memory: "1Gi" },
              env: [{ name: "STRIPE_API_KEY", secretRef: "stripe-audit-key" }],
            },
          ],
        },
        tags: args.tags,
      },
      { parent: this, dependsOn: [...args.identity.grants, ...(args.dependsOn ?? [])] },
    );
    this.alert = new MetricAlert(
      `${name}-duplicates`,
      {
        resourceGroupName: args.resourceGroupName,
        ruleName: `${args.jobName}-duplicates`,
        description: `The nightly audit ${args.jobName} found customers charged twice (exit 1), or could not run (exit 2): read its log (az containerapp job execution list / logs), review, then refund as infra/README.md says.`,
        location: "global",
        enabled: true,
        severity: args.severity,
        scopes: [this.job.id],
        evaluationFrequency: "PT1H",
        windowSize: "PT1H",
        autoMitigate: true,
        criteria: {
          odataType: "Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria",
          allOf: [
            {
              criterionType: "StaticThresholdCriterion",
              name: "failed-executions",
              metricNamespace: "Microsoft.App/jobs",
              metricName: "Executions",
              operator: "GreaterThan",
              threshold: 0,
              timeAggregation: "Total",
              dimensions: [{ name: "state", operator: "Include", values: ["Failed"] }],
            },
          ],
        },
        actions: args.actionGroupId ? [{ actionGroupId: args.actionGroupId }] : [],
        tags: args.tags,
      },
      { parent: this },
    );
    this.registerOutputs({ jobId: this.job.id, alertId: this.alert.id });
  }
}
