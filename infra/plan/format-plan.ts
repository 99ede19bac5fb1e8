// The readable plan: one row per queue, built from the resources the program registered (not from the config),
// so the table shows what `pulumi up` would create.
import { basename } from "node:path";
import { builtInRoles } from "../access.js";
import { consumerRoleStatements, consumerSchemaName, entraPrincipalStatement } from "../database-roles.js";
import { describeMs } from "../../tuning/index.js";
import { alertSignalSummary } from "./alert-plan.js";
import { dayTwoLines } from "./lock-plan.js";
import { billingPolicies } from "../policy/policies.js";
import { decodeQueueMetadata } from "../queue-metadata.js";
import type { MockedResource } from "./azure-mocks.js";
import type { Plan } from "./run-plan.js";

const roleNames: Record<string, string> = {
  [builtInRoles.serviceBusDataReceiver]: "Data Receiver",
  [builtInRoles.serviceBusDataSender]: "Data Sender",
  [builtInRoles.serviceBusDataOwner]: "Data Owner",
};

const alertLabels: Record<string, string> = {
  DeadletteredMessages: "dead-lettered",
  ThrottledRequests: "throttled",
  ServerErrors: "server errors",
  AbandonMessage: "abandoned",
  ActiveMessages: "backlog",
  UserErrors: "user errors (lost locks)",
  ScheduledMessages: "retry backlog",
};

interface Criterion {
  metricName?: string;
  threshold?: number;
  dimensions?: { name?: string; values?: string[] }[];
}

const criteriaOf = (alert: MockedResource) =>
  ((alert.inputs.criteria as { allOf?: Criterion[] } | undefined)?.allOf ?? []);

function watches(alert: MockedResource, queueName: string): boolean {
  return criteriaOf(alert).some((criterion) =>
    (criterion.dimensions ?? []).some((d) => d.name === "EntityName" && (d.values ?? []).includes(queueName)),
  );
}

/** Resource kinds in the order a reader meets them; others follow alphabetically. */
const typeOrder = ["Namespace", "Queue", "QueueAuthorizationRule", "RoleAssignment", "MetricAlert", "ActionGroup", "DiagnosticSetting"];

/** Lays out rows whose cells may hold several lines, columns padded to their widest line. */
export function table(header: string[], rows: string[][]): string {
  const cells = [header, ...rows].map((row) => row.map((cell) => cell.split("\n")));
  const widths = header.map((_, column) => Math.max(...cells.flatMap((row) => (row[column] ?? []).map((line) => line.length))));
  const lines: string[] = [];
  for (const row of cells) {
    const height = Math.max(...row.map((cell) => cell.length));
    for (let line = 0; line < height; line++) {
      lines.push(row.map((cell, column) => (cell[line] ?? "").padEnd(widths[column] ?? 0)).join("  ").trimEnd());
    }
  }
  return lines.join("\n");
}

function renewalText(consumerRenewalMs: number | undefined): string {
  if (consumerRenewalMs === undefined) return "unknown (no budget)";
  if (consumerRenewalMs === 0) return "none: lock covers it";
  return `${consumerRenewalMs} ms (${describeMs(consumerRenewalMs)})`;
}

/** The statements the database's own administrator runs once after phase one: a role per consumer, owning only its schema. */
function databaseRoleLines({ config }: Plan): string[] {
  const db = config.database;
  const consumers = config.app?.consumers ?? [];
  if (!db || db.administrators.length === 0 || consumers.length === 0) return [];
  return [
    `  Database roles: after phase one, as ${db.administrators.map((admin) => admin.principalName).join(" or ")}, per consumer (each owns only its schema):`,
    ...consumers.flatMap((consumer) => [
      `    ${consumer.identityName}: OID=$(az identity show -g ${config.resourceGroupName} -n ${consumer.identityName} --query principalId -o tsv)`,
      `      in postgres: ${entraPrincipalStatement(consumer.identityName, "$OID")}`,
      `      in ${db.databaseName}: ${consumerRoleStatements({ roleName: consumer.identityName, schema: consumerSchemaName(consumer.queue), databaseName: db.databaseName }).join(" ")}`,
    ]),
  ];
}

/** Each secret the apps read: its phase, who may read it, what the operator does. Names only: no value exists here. */
function secretLines({ report }: Plan): string[] {
  return report.secrets.flatMap((secret) => [
    `  Secret ${secret.name} (${secret.env}; present: ${secret.present}), read by ${secret.readers.map((r) => `${r.identity} (${r.granted ? "granted" : "NOT granted"} Key Vault Secrets User)`).join(", ")}${secret.referencedBy.length > 0 ? `, referenced by ${secret.referencedBy.join(", ")}` : ""}.`,
    `    This run (${secret.phase === "bootstrap" ? "bootstrap, phase one" : "apps"}): ${secret.thisRun}.`,
    `    Operator: ${secret.operator}`,
  ]);
}

/** The service around the queues: where it runs and each consumer's computed bounds, each with its reason. */
function serviceLines(plan: Plan): string[] {
  const { config, report } = plan;
  const lines: string[] = [];
  if (config.database) {
    const db = config.database;
    lines.push(
      `Guard database ${db.serverName}: PostgreSQL ${db.version}, ${db.skuName}, Entra ID only, HA ${db.highAvailability}, backups ${db.backupRetentionDays} days${db.geoRedundantBackup ? " geo-redundant" : ""}, ${config.network ? "private access" : "public access (Azure services only)"}, max_connections ${db.maxConnections} (${db.reservedConnections} reserved).`,
      // A static server parameter: setting it is cheap, applying it is not.
      `  max_connections is static: it applies only after a server restart. Restart once after the first deployment (az postgres flexible-server restart -g ${config.resourceGroupName} -n ${db.serverName}); each later change needs another, a short outage in which the consumers' claims fail and their messages are redelivered.`,
    );
    lines.push(...databaseRoleLines(plan));
  }
  if (config.vault) {
    lines.push(
      `Key Vault ${config.vault.name}: RBAC, soft delete ${config.vault.softDeleteRetentionInDays} days${config.production ? ", purge protection, private endpoint only" : ", public"}; secret values are set out of band (${Object.values(config.vault.secrets).join(", ")}).`,
      ...secretLines(plan),
    );
  }
  if (config.network) lines.push(`Network ${config.network.vnetName} ${config.network.addressSpace}: private endpoints for the namespace and the vault, private DNS zones, the database in its delegated subnet.`);
  if (report.consumers.length > 0) {
    const stripe = config.app?.stripe;
    if (stripe) {
      lines.push(
        `Stripe rate budget: ${stripe.utilization} x ${stripe.rateLimitPerSecond} operations/s (Stripe's live default is 100/s, test mode 25/s), shared by ${report.consumers.length} consumer app(s), each at most ${stripe.utilization} x one endpoint's ${stripe.endpointRateLimitPerSecond}/s (its STRIPE_REQUESTS_PER_SECOND); a call is assumed to take at least ${stripe.fastestCallMs} ms.`,
      );
    }
    lines.push(
      "",
      table(
        ["CONSUMER APP", "QUEUE", "REPLICAS", "GRACE PERIOD", "KEDA MESSAGES", "CONNECTIONS"],
        report.consumers.map((consumer) => [
          consumer.app,
          consumer.queue,
          `${consumer.bounds.minReplicas}..${consumer.bounds.maxReplicas}`,
          `${consumer.bounds.terminationGracePeriodSeconds} s`,
          String(consumer.bounds.messageCount),
          `${consumer.connections.perReplica}/replica, ${consumer.connections.atMaxReplicas} at most of ${consumer.connections.budget}`,
        ]),
      ),
      "",
    );
    for (const consumer of report.consumers) {
      lines.push(`${consumer.app}:`);
      for (const [what, why] of Object.entries(consumer.bounds.explanation)) lines.push(`  ${what} ${why}`);
    }
    lines.push("");
  }
  return lines;
}

type ResourcesOfType = (type: string) => MockedResource[];

/** The lines of one queue's alerts, e.g. "dead-lettered > 0 sev 1". */
function queueAlertLines(alerts: MockedResource[], queueName: string): string[] {
  return alerts
    .filter((alert) => watches(alert, queueName))
    .map((alert) => {
      const criterion = criteriaOf(alert)[0];
      const metric = criterion?.metricName ?? "?";
      const threshold = criterion?.threshold ? ` > ${criterion.threshold}` : "";
      const actions = Array.isArray(alert.inputs.actions) && alert.inputs.actions.length > 0 ? "" : " (no action group)";
      // A stateless alert repeats at every evaluation while its condition holds.
      const repeats = alert.inputs.autoMitigate === false ? `, repeating every ${String(alert.inputs.evaluationFrequency).replace(/^PT/, "").toLowerCase()}` : "";
      return `${alertLabels[metric] ?? metric}${threshold} sev ${String(alert.inputs.severity)}${repeats}${actions}`;
    });
}

/** The lines of who may do what on one queue: its role assignments (by identity where known), then its SAS rules. */
function queueAccessLines(ofType: ResourcesOfType, queue: MockedResource, queueName: string): string[] {
  const identityNames = new Map(
    ofType("managedidentity:UserAssignedIdentity").map((identity) => [String(identity.state.principalId), `identity ${String(identity.inputs.resourceName)}`]),
  );
  return [
    ...ofType("authorization:RoleAssignment")
      .filter((role) => role.inputs.scope === queue.id)
      .map((role) => {
        const guid = String(role.inputs.roleDefinitionId ?? "").split("/").pop() ?? "";
        const principal = String(role.inputs.principalId);
        return `${roleNames[guid] ?? `role ${guid}`}: ${identityNames.get(principal) ?? principal}`;
      }),
    ...ofType("servicebus:QueueAuthorizationRule")
      .filter((rule) => rule.inputs.queueName === queueName)
      .sort((a, b) => String(a.inputs.authorizationRuleName).localeCompare(String(b.inputs.authorizationRuleName)))
      .map((rule) => `${(rule.inputs.rights as string[]).join("+")} SAS rule ${String(rule.inputs.authorizationRuleName)}`),
  ];
}

/** One row per queue, in config order (registration order depends on when each queue's inputs resolved). */
function queueRows(report: Plan["report"], ofType: ResourcesOfType): string[][] {
  const alerts = ofType("monitor:MetricAlert");
  const queueOrder = (queue: MockedResource) => report.queues.findIndex((q) => q.name === queue.inputs.queueName);
  return [...ofType("servicebus:Queue")].sort((a, b) => queueOrder(a) - queueOrder(b)).map((queue) => {
    const name = String(queue.inputs.queueName ?? queue.name);
    const metadata = decodeQueueMetadata(queue.inputs.userMetadata);
    const planned = report.queues.find((q) => q.name === name);
    return [
      name,
      String(queue.inputs.lockDuration ?? "PT1M (Azure default)"),
      String(queue.inputs.maxDeliveryCount ?? "10 (Azure default)"),
      renewalText(metadata?.consumer.maxAutoLockRenewalDurationInMs),
      planned ? describeMs(planned.worstCaseStripeMs) : "?",
      queueAlertLines(alerts, name).join("\n") || "none",
      queueAccessLines(ofType, queue, name).join("\n") || "none",
    ];
  });
}

/** "3 Queue, 12 MetricAlert, ...": the planned resources counted by type, in the usual reading order. */
function resourceCountLine(report: Plan["report"]): string {
  const counts = new Map<string, number>();
  for (const resource of report.resources) {
    const short = resource.type.split(":").pop() ?? resource.type;
    counts.set(short, (counts.get(short) ?? 0) + 1);
  }
  const rank = (type: string) => (typeOrder.includes(type) ? typeOrder.indexOf(type) : typeOrder.length);
  return [...counts]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([type, count]) => `${count} ${type}`)
    .join(", ");
}

function policyLines(report: Plan["report"]): string[] {
  if (report.violations.length === 0) return [`Policies: ${billingPolicies.length} checked, all passed.`];
  const mandatory = report.violations.filter((v) => v.level === "mandatory");
  return [
    `Policies: ${billingPolicies.length} checked, ${report.violations.length} violation(s), ${mandatory.length} mandatory.`,
    ...report.violations.map((v) => `  [${v.level}] ${v.policy} on ${v.resource}: ${v.message}`),
  ];
}

export function formatPlan(plan: Plan): string {
  const { report, mocked, config } = plan;
  const ofType: ResourcesOfType = (type) => mocked.filter((r) => r.custom && r.type === `azure-native:${type}`);
  const namespace = ofType("servicebus:Namespace")[0];
  const actionGroup = ofType("monitor:ActionGroup")[0];
  const ns = config.namespace;
  const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;
  const receivers = `${plural(config.alerts.emails.length, "e-mail")}, ${plural(config.alerts.webhooks.length, "webhook")}`;
  return [
    `Stack ${report.stack} (${basename(plan.file)}), planned offline under Pulumi mocks: no cloud calls.`,
    `Namespace ${String(namespace?.inputs.namespaceName ?? ns.name)}: ${ns.sku}, TLS >= ${ns.minimumTlsVersion}, local auth ${ns.disableLocalAuth ? "off (Entra ID only)" : "on (queue-level SAS rules)"}, public network ${ns.publicNetworkAccess}, ${config.location}, resource group ${config.resourceGroupName}.`,
    actionGroup
      ? `Alerts notify action group ${String(actionGroup.inputs.actionGroupName)} (${receivers}).`
      : "Alerts notify nobody: no e-mail or webhook receivers configured.",
    alertSignalSummary(report.alerts),
    `${report.resources.length} resources: ${resourceCountLine(report)}.`,
    "",
    table(["QUEUE", "LOCK", "MAX DELIVERIES", "RENEWAL DEADLINE", "STRIPE WORST CASE", "ALERTS", "ACCESS"], queueRows(report, ofType)),
    "",
    ...serviceLines(plan),
    ...dayTwoLines(report.dayTwo),
    ...policyLines(report),
  ].join("\n");
}
