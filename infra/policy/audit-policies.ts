// Every stack with consumers audits its Stripe account nightly: a scheduled Container Apps Job running
// `chargeguard audit` without --refund, under an identity of its own, with a Stripe key of its own from Key Vault (a
// restricted read key, never the consumers' write key), and an enabled metric alert on its failed executions (the
// audit exits 1 when it finds duplicates). Plain policy objects; only type imports from @pulumi/policy.
import type { PolicyResource, StackValidationArgs, StackValidationPolicy } from "@pulumi/policy";
import { list, obj, ofType } from "./policy-helpers.js";
import { types } from "./resource-types.js";

const lower = (value: unknown) => String(value ?? "").toLowerCase();
const containerOf = (resource: PolicyResource) => obj(list(obj(resource.props.template).containers)[0]);

/** The Key Vault URL a resource's STRIPE_API_KEY comes from (undefined: not a Key Vault reference). */
function stripeKeyUrl(resource: PolicyResource): string | undefined {
  const ref = list(containerOf(resource).env).map(obj).find((entry) => entry.name === "STRIPE_API_KEY")?.secretRef;
  const secret = list(obj(resource.props.configuration).secrets).map(obj).find((entry) => entry.name === ref);
  return typeof secret?.keyVaultUrl === "string" ? lower(secret.keyVaultUrl) : undefined;
}

function auditJobProblems(args: StackValidationArgs, job: PolicyResource): string[] {
  const apps = ofType(args, types.containerApp);
  const configuration = obj(job.props.configuration);
  const words = [...list(containerOf(job).command), ...list(containerOf(job).args)].map(String);
  const identities = list(obj(job.props.identity).userAssignedIdentities).map(lower);
  const appIdentities = new Set(apps.flatMap((app) => list(obj(app.props.identity).userAssignedIdentities).map(lower)));
  const keyUrl = stripeKeyUrl(job);
  const alerted = ofType(args, types.metricAlert).some(
    (alert) =>
      alert.props.enabled === true &&
      list(alert.props.scopes).some((scope) => lower(scope) === lower(job.props.id)) &&
      list(alert.props.actions).length > 0 &&
      list(obj(alert.props.criteria).allOf).some((criterion) => obj(criterion).metricName === "Executions" && list(obj(criterion).dimensions).some((d) => list(obj(d).values).includes("Failed"))),
  );
  return [
    ...(configuration.triggerType === "Schedule" && typeof obj(configuration.scheduleTriggerConfig).cronExpression === "string" ? [] : ["runs on no schedule (triggerType Schedule with a cron expression)"]),
    ...(words.includes("audit") ? [] : ["does not run chargeguard audit"]),
    ...(words.some((word) => word === "--refund" || word === "--yes") ? ["passes --refund or --yes: refunds are a person's decision after review"] : []),
    ...(identities.length > 0 && identities.every((id) => !appIdentities.has(id)) ? [] : ["has no identity of its own (it shares a consumer's)"]),
    ...(keyUrl === undefined ? ["reads STRIPE_API_KEY from no Key Vault reference"] : []),
    ...(keyUrl !== undefined && apps.some((app) => stripeKeyUrl(app) === keyUrl) ? ["reads the consumers' Stripe key: give it a restricted read-only key of its own (vault.secrets.stripeAuditKey)"] : []),
    ...(alerted ? [] : ["has no enabled metric alert with an action group on its failed executions (Executions, state Failed): duplicates found would go unseen"]),
  ];
}

export const nightlyAudit: StackValidationPolicy = {
  name: "nightly-audit",
  description:
    "A stack with consumer apps runs chargeguard audit as a scheduled Container Apps Job: no --refund, its own identity, its own Stripe key from Key Vault, and an alert on its failed executions (duplicates found).",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    if (ofType(args, types.containerApp).length === 0) return;
    const jobs = ofType(args, types.job).filter((job) => [...list(containerOf(job).command), ...list(containerOf(job).args)].map(String).includes("audit"));
    if (jobs.length === 0) report("the stack deploys consumer apps but no nightly chargeguard audit job: a double charge from any system sharing the Stripe account would go unseen");
    for (const job of jobs) {
      for (const problem of auditJobProblems(args, job)) report(`audit job ${String(job.props.jobName ?? job.name)}: ${problem}`, job.urn);
    }
  },
};
