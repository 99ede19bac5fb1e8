// The plan's --details view: everything the summary leaves out, each number with its derivation. Queue tuning in
// words, each consumer app's bounds and why, every role assignment (role name, principal, scope), every SAS rule,
// every alert with its signal, window and threshold, the database, vault and network with the operator's steps.
import { consumerRoleStatements, consumerSchemaName, entraPrincipalStatement } from "../specs/index.js";
import { grantsOf } from "./access-words.js";
import { alertSignalSummary } from "./alert-plan.js";
import { alertDetailLines } from "./alert-words.js";
import type { MockedResource } from "./azure-mocks.js";
import type { Plan } from "./run-plan.js";

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

/** "1 Namespace, 2 Queue, 31 MetricAlert, ...": the planned resources counted by type, in the usual reading order. */
export function resourceCountLine(report: Plan["report"]): string {
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
    `  Secret ${secret.name} (${secret.env}; present: ${secret.present}), read by ${secret.readers.map((r) => `${r.identity} (${r.granted ? "granted Key Vault Secrets User" : secret.phase === "bootstrap" ? "Key Vault Secrets User in phase two" : "NOT granted Key Vault Secrets User"})`).join(", ")}${secret.referencedBy.length > 0 ? `, referenced by ${secret.referencedBy.join(", ")}` : ""}.`,
    `    This run (${secret.phase === "bootstrap" ? "bootstrap, phase one" : "apps"}): ${secret.thisRun}.`,
    `    Operator: ${secret.operator}`,
  ]);
}

/** The database, the vault and the network: what they are and what the operator must do after `pulumi up`. */
function operatorLines(plan: Plan): string[] {
  const { config } = plan;
  const lines: string[] = [];
  if (config.database) {
    const db = config.database;
    lines.push(
      `Guard database ${db.serverName}: PostgreSQL ${db.version}, ${db.skuName}, ${db.storageSizeGB} GiB storage, Entra ID only, HA ${db.highAvailability}, backups ${db.backupRetentionDays} days${db.geoRedundantBackup ? " geo-redundant" : ""}, ${config.network ? "private access" : "public access (Azure services only)"}, max_connections ${db.maxConnections} connections (${db.reservedConnections} reserved).`,
      // A static server parameter: setting it is cheap, applying it is not.
      `  max_connections is static: it applies only after a server restart. Restart once after the first deployment (az postgres flexible-server restart -g ${config.resourceGroupName} -n ${db.serverName}); each later change needs another, a short outage in which the consumers' claims fail and their messages are redelivered.`,
      ...databaseRoleLines(plan),
    );
  }
  if (config.vault) {
    lines.push(
      `Key Vault ${config.vault.name}: RBAC, soft delete ${config.vault.softDeleteRetentionInDays} days${config.production ? ", purge protection, private endpoint only" : ", public"}; secret values are set out of band (${Object.values(config.vault.secrets).join(", ")}).`,
      ...secretLines(plan),
    );
  }
  const stripe = config.app?.stripe;
  if (stripe && plan.report.consumers.length > 0) {
    lines.push(
      `Stripe rate budget: ${stripe.utilization} x ${stripe.rateLimitPerSecond} requests/s (Stripe's live default is 100/s, test mode 25/s), shared by ${plan.report.consumers.length} consumer app(s), each at most ${stripe.utilization} x one endpoint's ${stripe.endpointRateLimitPerSecond} requests/s (its STRIPE_REQUESTS_PER_SECOND); a call is assumed to take at least ${stripe.fastestCallMs} ms.`,
    );
  }
  if (config.network) lines.push(`Network ${config.network.vnetName} ${config.network.addressSpace}: private endpoints for the namespace and the vault, private DNS zones, the database in its delegated subnet.`);
  return lines;
}

/** Each queue's numbers with the sentence that derives them (tuneQueue's explanation). */
function tuningLines({ config }: Plan): string[] {
  return config.queues.flatMap((queue) => [`  ${queue.name}:`, ...Object.entries(queue.tuning.explanation).map(([what, why]) => `    ${what}: ${why}`)]);
}

function consumerLines({ report }: Plan): string[] {
  if (report.consumers.length === 0) return [];
  return [
    "Consumer apps",
    table(
      ["  APP", "QUEUE", "REPLICAS", "GRACE PERIOD", "KEDA TARGET", "CONNECTIONS PER REPLICA", "AT MAX (2 REVISIONS)", "BUDGET"],
      report.consumers.map((consumer) => [
        `  ${consumer.app}`,
        consumer.queue,
        `${consumer.bounds.minReplicas} to ${consumer.bounds.maxReplicas}`,
        `${consumer.bounds.terminationGracePeriodSeconds} s`,
        `${consumer.bounds.messageCount} messages`,
        `${consumer.connections.perReplica} connections`,
        `${consumer.connections.atMaxReplicas} connections`,
        `${consumer.connections.budget} connections`,
      ]),
    ),
    ...report.consumers.flatMap((consumer) => [`  ${consumer.app}:`, ...Object.entries(consumer.bounds.explanation).map(([what, why]) => `    ${what} ${why}`)]),
  ];
}

function accessDetailLines(plan: Plan, ofType: (type: string) => MockedResource[]): string[] {
  const grants = grantsOf(plan.config, plan.mocked);
  const rules = ofType("servicebus:QueueAuthorizationRule");
  return [
    `Role assignments (${grants.length})`,
    table(["  ROLE", "PRINCIPAL", "SCOPE"], grants.map((grant) => [`  ${grant.role}`, grant.principal, grant.scope])),
    ...(rules.length > 0
      ? [`SAS rules (${rules.length})`, ...rules.map((rule) => `  ${String(rule.inputs.authorizationRuleName)} on queue ${String(rule.inputs.queueName)}: ${(rule.inputs.rights as string[]).join(" + ")}`)]
      : []),
  ];
}

export function detailLines(plan: Plan): string[] {
  const ofType = (type: string) => plan.mocked.filter((r) => r.custom && r.type === `azure-native:${type}`);
  const alerts = [...ofType("monitor:MetricAlert"), ...ofType("monitor:ScheduledQueryRule")];
  return [
    "DETAILS",
    `Resources (${plan.report.resources.length}): ${resourceCountLine(plan.report)}.`,
    "Queue tuning, each number and why",
    ...tuningLines(plan),
    ...consumerLines(plan),
    ...accessDetailLines(plan, ofType),
    `Alerts (${alerts.length})`,
    `  ${alertSignalSummary(plan.report.alerts)}`,
    ...alerts.flatMap(alertDetailLines),
    ...operatorLines(plan),
    "",
  ];
}
