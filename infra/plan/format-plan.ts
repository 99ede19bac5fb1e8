// The readable plan: a summary a platform engineer reads on one screen per environment (the verdict, the namespace,
// each queue's throughput, lock, access and alerts, the service around them), built from the resources the program
// registered, not from the config, so it shows what `pulumi up` would create. `--details` appends every derivation
// (format-details.ts); `--json` is the contract and does not go through here.
import { basename } from "node:path";
import { billingPolicies } from "../policy/policies.js";
import { grantsOf } from "./access-words.js";
import type { MockedResource } from "./azure-mocks.js";
import { detailLines } from "./format-details.js";
import { queueSummaryLines } from "./format-queue.js";
import { labelled, wrap, wrapItems } from "./plan-layout.js";
import { dayTwoLines } from "./lock-plan.js";
import { count, rate } from "./plan-units.js";
import { queueThroughput, stackThroughput } from "./queue-throughput.js";
import type { Plan } from "./run-plan.js";

export { table } from "./format-details.js";

export interface FormatOptions {
  /** Append every derivation, each alert's signal, every role assignment and the operator's steps. */
  details?: boolean;
}

type ResourcesOfType = (type: string) => MockedResource[];

function policyLines(report: Plan["report"]): string[] {
  if (report.violations.length === 0) return [`Policies: ${billingPolicies.length} checked, all passed.`];
  const mandatory = report.violations.filter((v) => v.level === "mandatory");
  return [
    `Policies: ${billingPolicies.length} checked, ${report.violations.length} violation(s), ${mandatory.length} mandatory.`,
    ...report.violations.map((v) => `  [${v.level}] ${v.policy} on ${v.resource}: ${v.message}`),
  ];
}

function headerLines(plan: Plan, ofType: ResourcesOfType): string[] {
  const { report, config } = plan;
  const ns = config.namespace;
  const namespace = ofType("servicebus:Namespace")[0];
  const actionGroup = ofType("monitor:ActionGroup")[0];
  const alerts = ofType("monitor:MetricAlert").length + ofType("monitor:ScheduledQueryRule").length;
  const units = ns.sku === "Premium" ? `, ${count(ns.capacity ?? 1, "messaging unit")}${ns.zoneRedundant ? ", zone redundant" : ""}` : "";
  return [
    `Stack ${report.stack} (${basename(plan.file)}), planned offline under Pulumi mocks: no cloud calls. What \`pulumi up\` would create:`,
    ...policyLines(report),
    ...wrap(
      `${report.resources.length} resources: ${count(report.queues.length, "queue")}, ${count(report.consumers.length, "consumer app")}, ${count(alerts, "alert")}, ${count(ofType("authorization:RoleAssignment").length, "role assignment")} (--details lists all by type).`,
    ),
    // Two sentences: the second starts a fresh line when it does not fit after the first.
    ...wrapItems("", "  ", [
      `Namespace ${String(namespace?.inputs.namespaceName ?? ns.name)}: ${ns.sku}${units}; ${ns.disableLocalAuth ? "Entra ID only" : "local auth on (queue-level SAS rules)"}; public network ${ns.publicNetworkAccess}; TLS ${ns.minimumTlsVersion} or newer; ${config.location}, resource group ${config.resourceGroupName}.`,
      actionGroup
        ? `Alerts notify action group ${String(actionGroup.inputs.actionGroupName)} (${count(config.alerts.emails.length, "e-mail")}, ${count(config.alerts.webhooks.length, "webhook")}).`
        : "Alerts notify nobody: no e-mail or webhook receivers configured.",
    ], ""),
    "",
  ];
}

/** The stack's queues together at max replicas: the figure a team sizes its traffic against. */
function stackThroughputLines(plan: Plan): string[] {
  const { config, report } = plan;
  if (config.bootstrap || !config.app) return [];
  const queues = report.queues.flatMap((planned) => {
    const consumer = config.app?.consumers.find((c) => c.queue === planned.name);
    const queueConfig = config.queues.find((q) => q.name === planned.name);
    return consumer && queueConfig ? [queueThroughput(consumer, planned.stripeCallsPerMessage, queueConfig.tuning.deliveryBudgetMs)] : [];
  });
  if (queues.length === 0) return [];
  const stack = stackThroughput(queues);
  const billing = config.app.stripe.rateLimitPerSecond * config.app.stripe.utilization;
  return labelled("throughput", [
    `${rate(stack.atMaxReplicasPerSecond, "messages")} at max replicas over ${count(stack.queues, "queue")}`,
    `using ${rate(stack.stripeRequestsPerSecond, "Stripe requests")} of the ${rate(billing, "requests")} for billing`,
  ]);
}

/** The service around the queues in a few lines: the Stripe budget, the database, the vault, the network, what is left to do. */
function serviceSummaryLines(plan: Plan): string[] {
  const { config, report } = plan;
  const lines: string[] = [];
  const stripe = config.app?.stripe;
  if (stripe && report.consumers.length > 0) {
    // One line: the figures are all requests/s, said once (the throughput line below needs the room on one screen).
    const perApp = [...new Set(config.app?.consumers.map((c) => c.budget.stripeRatePerSecond))].join(" or ");
    lines.push(
      ...labelled("Stripe", [
        `${rate(stripe.rateLimitPerSecond * stripe.utilization, "requests")} for billing (${stripe.utilization} x ${stripe.rateLimitPerSecond} per account)`,
        `${perApp} per app (${stripe.utilization} x ${stripe.endpointRateLimitPerSecond} per endpoint)`,
        `calls from ${stripe.fastestCallMs} ms`,
      ]),
    );
  }
  lines.push(...stackThroughputLines(plan));
  const todo: string[] = [];
  if (config.database) {
    const db = config.database;
    const used = report.consumers.reduce((sum, c) => sum + c.connections.atMaxReplicas, 0);
    lines.push(
      ...labelled("database", [
        `${db.serverName}: PostgreSQL ${db.version}`,
        db.skuName,
        `${db.storageSizeGB} GiB`,
        config.network ? "private" : "public (Azure services only)",
        `HA ${db.highAvailability}`,
        `backups ${db.backupRetentionDays} days${db.geoRedundantBackup ? " geo-redundant" : ""}`,
        `max_connections ${db.maxConnections} (${db.reservedConnections} reserved; the apps use up to ${used} in a rollout)`,
      ]),
    );
    todo.push(`restart ${db.serverName} once (max_connections is static)`);
    if (db.administrators.length > 0 && (config.app?.consumers.length ?? 0) > 0) todo.push(`create ${count(config.app?.consumers.length ?? 0, "database role")}`);
  }
  if (config.vault) {
    lines.push(...labelled("vault", [`${config.vault.name}: RBAC, ${config.production ? "purge protection, private" : "public"}`, `secrets ${Object.values(config.vault.secrets).join(", ")}`]));
    todo.push(`put ${count(Object.values(config.vault.secrets).length, "secret value")} in the vault`);
  }
  if (config.network) lines.push(...labelled("network", [`${config.network.vnetName} ${config.network.addressSpace}: private endpoints, private DNS, the database in its own subnet`]));
  if (todo.length > 0) lines.push(...labelled("operator", [...todo.map((step, index) => (index === todo.length - 1 ? `${step} (steps: --details)` : step))]));
  return lines.length > 0 ? ["Service", ...lines, ""] : [];
}

function queueLines(plan: Plan, ofType: ResourcesOfType): string[] {
  const { report, config } = plan;
  const queues = ofType("servicebus:Queue");
  const alerts = ofType("monitor:MetricAlert");
  const sasRules = ofType("servicebus:QueueAuthorizationRule");
  const grants = grantsOf(config, plan.mocked);
  return report.queues.flatMap((planned) => {
    const queueConfig = config.queues.find((q) => q.name === planned.name);
    if (!queueConfig) return [];
    const resource = queues.find((q) => q.inputs.queueName === planned.name);
    return [...queueSummaryLines({ planned, config: queueConfig, resource, stack: config, alerts, sasRules, grants }), ""];
  });
}

export function formatPlan(plan: Plan, options: FormatOptions = {}): string {
  const ofType: ResourcesOfType = (type) => plan.mocked.filter((r) => r.custom && r.type === `azure-native:${type}`);
  return [
    ...headerLines(plan, ofType),
    ...queueLines(plan, ofType),
    ...serviceSummaryLines(plan),
    ...dayTwoLines(plan.report.dayTwo),
    ...(options.details ? detailLines(plan) : ["More with --details: each derivation, every alert's signal and window, each role's scope, the operator's steps."]),
  ]
    .join("\n")
    .trimEnd();
}
