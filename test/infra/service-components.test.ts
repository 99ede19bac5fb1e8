// The whole-service components under Pulumi mocks: the prod stack as committed (private network, consumer apps,
// guard database, vault, observability) and the components' own refusals.
import { fileURLToPath } from "node:url";
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import { builtInRoles, roleAssignmentName } from "../../infra/specs/index.js";
import { BillingNamespace } from "../../infra/components/billing-namespace.js";
import { azureMocks, type MockedResource } from "../../infra/plan/azure-mocks.js";
import { planStack, type Plan } from "../../infra/plan/run-plan.js";
import { tuneQueue } from "../../tuning/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const ofType = (plan: Plan, type: string) => plan.mocked.filter((r) => r.custom && r.type === `azure-native:${type}`);
const only = <T>(items: T[]): T => {
  expect(items).toHaveLength(1);
  return items[0] as T;
};
const byName = (plan: Plan, type: string, key: string, value: string) => only(ofType(plan, type).filter((r) => r.inputs[key] === value));
const invoiceBudget = { stripe: { timeoutMs: 80_000, maxNetworkRetries: 2, threeDsP99Ms: 120_000 }, processingMs: 5000, maxDeliveryCount: 8 };

describe("the prod service under mocks", () => {
  let plan: Plan;
  beforeAll(async () => {
    plan = await planStack({ stack: "prod", cwd: root });
  });

  it("runs each consumer as a Container App scaled by KEDA with its own identity and the scaler's, bounds computed from the budgets", () => {
    const app = byName(plan, "app:ContainerApp", "containerAppName", "invoice-settlement-consumer");
    const identity = byName(plan, "managedidentity:UserAssignedIdentity", "resourceName", "id-invoice-settlement-consumer");
    const scaler = byName(plan, "managedidentity:UserAssignedIdentity", "resourceName", "id-invoice-settlement-consumer-scaler");
    const environment = only(ofType(plan, "app:ManagedEnvironment"));
    const template = app.inputs.template as { terminationGracePeriodSeconds: number; scale: Record<string, unknown>; containers: { env: { name: string; value?: string; secretRef?: string }[] }[] };
    expect(app.inputs).toMatchObject({
      managedEnvironmentId: environment.id,
      identity: { type: "UserAssigned", userAssignedIdentities: [identity.id, scaler.id] },
      configuration: {
        secrets: [{ name: "stripe-api-key", keyVaultUrl: "https://kv-billing-prod-cg.vault.azure.net/secrets/stripe-api-key", identity: identity.id }],
        registries: [{ server: "crbillingprod.azurecr.io", identity: identity.id }],
      },
    });
    // Grace period >= a message's hold (one Stripe slot per message: the delivery budget, 376.5 s), KEDA target =
    // messages in flight, max from Stripe's budget: min(100 x 0.8 / 2, 25 x 0.8) = 20/s / 4 per replica / 2 revisions.
    expect(template.terminationGracePeriodSeconds).toBe(Math.ceil(tuneQueue(invoiceBudget).deliveryBudgetMs / 1000));
    expect(template.terminationGracePeriodSeconds).toBe(377);
    expect(template.scale).toEqual({
      minReplicas: 2,
      maxReplicas: 2,
      rules: [
        {
          name: "servicebus-queue",
          // KEDA signs in as its own identity (Manage on the queue), not the consumer's.
          custom: { type: "azure-servicebus", identity: scaler.id, metadata: { namespace: "sb-billing-prod", queueName: "invoice-settlement", messageCount: "1" } },
        },
      ],
    });
    const env = Object.fromEntries(template.containers[0]?.env.map((e) => [e.name, e.value ?? `secretRef:${e.secretRef}`]) ?? []);
    expect(env).toMatchObject({
      SERVICEBUS_FULLY_QUALIFIED_NAMESPACE: "sb-billing-prod.servicebus.windows.net",
      SERVICEBUS_QUEUE: "invoice-settlement",
      AZURE_CLIENT_ID: identity.state.clientId,
      MAX_CONCURRENT_CALLS: "1",
      MAX_CONCURRENT_STRIPE_CALLS: "1",
      // The fleet-wide Stripe ceiling the runtime's governor reads: the same budget as the replica bounds.
      STRIPE_REQUESTS_PER_SECOND: "20",
      DATABASE_URL: "postgres://id-invoice-settlement-consumer@psql-billing-prod.postgres.database.azure.com:5432/billing?sslmode=require",
      DATABASE_AUTH: "entra",
      STRIPE_API_KEY: "secretRef:stripe-api-key",
    });
    // A Pulumi secret (encrypted in state): the plan shows it redacted (test/infra/telemetry-auth.test.ts).
    expect(env.APPLICATIONINSIGHTS_CONNECTION_STRING).toBe("[secret]");
  });

  it("assigns the identity's roles with deterministic names before the app, nothing at namespace scope", () => {
    const identity = byName(plan, "managedidentity:UserAssignedIdentity", "resourceName", "id-usage-billing-consumer");
    const roles = ofType(plan, "authorization:RoleAssignment").filter((role) => role.inputs.principalId === identity.state.principalId);
    const queue = byName(plan, "servicebus:Queue", "queueName", "usage-billing");
    const vault = only(ofType(plan, "keyvault:Vault"));
    const grants = roles.map((role) => [String(role.inputs.roleDefinitionId).split("/").pop(), role.inputs.scope]);
    expect(grants.sort()).toEqual(
      [
        [builtInRoles.serviceBusDataReceiver, queue.id],
        [builtInRoles.serviceBusDataSender, queue.id],
        [builtInRoles.acrPull, "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-billing-prod/providers/Microsoft.ContainerRegistry/registries/crbillingprod"],
        [builtInRoles.keyVaultSecretsUser, `${String(vault.id)}/secrets/stripe-api-key`],
        [builtInRoles.monitoringMetricsPublisher, only(ofType(plan, "applicationinsights:Component")).id],
      ].sort(),
    );
    for (const role of roles) {
      const guid = String(role.inputs.roleDefinitionId).split("/").pop() as string;
      expect(role.inputs.roleAssignmentName).toBe(roleAssignmentName(String(role.inputs.scope), String(identity.state.principalId), guid));
    }
    // Registered before the app: every role assignment precedes the app in registration order.
    const appIndex = plan.mocked.findIndex((r) => r.type === "azure-native:app:ContainerApp" && r.inputs.containerAppName === "usage-billing-consumer");
    for (const role of roles) expect(plan.mocked.indexOf(role)).toBeLessThan(appIndex);
  });

  it("deploys the guard database Entra-only, zone redundant, private, with max_connections from the config", () => {
    const server = only(ofType(plan, "dbforpostgresql:Server"));
    const network = only(ofType(plan, "network:Subnet").filter((s) => s.inputs.subnetName === "database"));
    const zone = only(ofType(plan, "privatedns:PrivateZone").filter((z) => String(z.inputs.privateZoneName).endsWith(".postgres.database.azure.com")));
    expect(server.inputs).toMatchObject({
      version: "16",
      sku: { name: "Standard_D2ds_v5", tier: "GeneralPurpose" },
      authConfig: { activeDirectoryAuth: "Enabled", passwordAuth: "Disabled", tenantId: "00000000-0000-0000-0000-0000000000aa" },
      highAvailability: { mode: "ZoneRedundant" },
      backup: { backupRetentionDays: 35, geoRedundantBackup: "Enabled" },
      network: { delegatedSubnetResourceId: network.id, privateDnsZoneArmResourceId: zone.id, publicNetworkAccess: "Disabled" },
    });
    expect(server.inputs).not.toHaveProperty("administratorLoginPassword");
    expect(network.inputs.delegations).toEqual([{ name: "Microsoft-DBforPostgreSQL-flexibleServers", serviceName: "Microsoft.DBforPostgreSQL/flexibleServers" }]);
    expect(byName(plan, "dbforpostgresql:Configuration", "configurationName", "max_connections").inputs).toMatchObject({ value: "400" });
    // The enhanced metrics the transaction-id wraparound alert reads.
    expect(byName(plan, "dbforpostgresql:Configuration", "configurationName", "metrics.collector_database_activity").inputs).toMatchObject({ value: "on" });
    const admins = ofType(plan, "dbforpostgresql:AdministratorsMicrosoftEntra").map((a) => [a.inputs.principalName, a.inputs.principalType]);
    // The DBA group alone administers the server; each consumer's identity gets a role owning only its schema.
    expect(admins.sort()).toEqual([["billing-dba", "group"]]);
    expect(ofType(plan, "dbforpostgresql:FirewallRule")).toEqual([]);
  });

  it("keeps the vault RBAC-only, purge-protected and private; the namespace and vault behind private endpoints", () => {
    const vault = only(ofType(plan, "keyvault:Vault"));
    expect(vault.inputs.properties).toMatchObject({
      enableRbacAuthorization: true,
      enableSoftDelete: true,
      enablePurgeProtection: true,
      publicNetworkAccess: "Disabled",
      networkAcls: { defaultAction: "Deny", bypass: "AzureServices" },
    });
    const ns = only(ofType(plan, "servicebus:Namespace"));
    const zones = Object.fromEntries(ofType(plan, "privatedns:PrivateZone").map((z) => [z.inputs.privateZoneName, z.id]));
    for (const [targetId, group, zone] of [
      [ns.id, "namespace", "privatelink.servicebus.windows.net"],
      [vault.id, "vault", "privatelink.vaultcore.azure.net"],
    ] as const) {
      const endpoint = only(ofType(plan, "network:PrivateEndpoint").filter((e) => (e.inputs.privateLinkServiceConnections as { privateLinkServiceId: string }[])[0]?.privateLinkServiceId === targetId));
      expect((endpoint.inputs.privateLinkServiceConnections as { groupIds: string[] }[])[0]?.groupIds).toEqual([group]);
      const zoneGroup = only(ofType(plan, "network:PrivateDnsZoneGroup").filter((g) => g.inputs.privateEndpointName === endpoint.inputs.privateEndpointName));
      expect(zoneGroup.inputs.privateDnsZoneConfigs).toEqual([{ name: group, privateDnsZoneId: zones[zone] }]);
    }
    expect(ofType(plan, "privatedns:VirtualNetworkLink")).toHaveLength(3);
    const env = only(ofType(plan, "app:ManagedEnvironment"));
    const apps = only(ofType(plan, "network:Subnet").filter((s) => s.inputs.subnetName === "apps"));
    expect(env.inputs).toMatchObject({ vnetConfiguration: { infrastructureSubnetId: apps.id, internal: true }, zoneRedundant: true });
    // Logs reach the workspace once, through the environment's diagnostic setting: no shared key anywhere.
    expect(env.inputs.appLogsConfiguration).toEqual({ destination: "azure-monitor" });
    const setting = only(ofType(plan, "monitor:DiagnosticSetting").filter((d) => d.inputs.resourceUri === env.id));
    expect(setting.inputs).toMatchObject({ logAnalyticsDestinationType: "Dedicated", logs: [{ categoryGroup: "allLogs", enabled: true }] });
    expect(JSON.stringify(plan.report)).not.toContain("plan-shared-key");
  });

  it("locks the production data (database server and vault, not the namespace) against deletion, and pages on waiting dead letters with a stateless metric alert", () => {
    const ns = only(ofType(plan, "servicebus:Namespace"));
    const server = only(ofType(plan, "dbforpostgresql:Server"));
    const vault = only(ofType(plan, "keyvault:Vault"));
    const locks = ofType(plan, "authorization:ManagementLockByScope").map((lock) => [lock.inputs.scope, lock.inputs.level]);
    expect(locks.sort()).toEqual([[server.id, "CanNotDelete"], [vault.id, "CanNotDelete"]].sort());
    // No log alert on the namespace's metrics: diagnostic settings never export DeadletteredMessages (DS Export: No).
    // Each queue's dead letters page through metric alerts instead, one of them stateless (repeating).
    expect(ofType(plan, "monitor:ScheduledQueryRule").filter((r) => !String(r.name).startsWith("billing-health-"))).toEqual([]);
    const actionGroup = only(ofType(plan, "monitor:ActionGroup"));
    const waiting = only(ofType(plan, "monitor:MetricAlert").filter((a) => a.inputs.ruleName === "sb-billing-prod-usage-billing-dead-letters-waiting"));
    expect(waiting.inputs).toMatchObject({ scopes: [ns.id], autoMitigate: false, evaluationFrequency: "PT15M", severity: 0, actions: [{ actionGroupId: actionGroup.id }] });
    expect((waiting.inputs.criteria as { allOf: unknown[] }).allOf).toEqual([
      expect.objectContaining({ metricName: "DeadletteredMessages", timeAggregation: "Maximum", threshold: 0, dimensions: [{ name: "EntityName", operator: "Include", values: ["usage-billing"] }] }),
    ]);
    // Diagnostics for every watched resource, all Dedicated.
    const settings = ofType(plan, "monitor:DiagnosticSetting");
    for (const watched of ["servicebus:Namespace", "dbforpostgresql:Server", "keyvault:Vault", "app:ManagedEnvironment"]) {
      const resource = only(ofType(plan, watched));
      expect(only(settings.filter((s) => s.inputs.resourceUri === resource.id)).inputs.logAnalyticsDestinationType, watched).toBe("Dedicated");
    }
    const serviceAlerts = ofType(plan, "monitor:MetricAlert").map((a) => (a.inputs.criteria as { allOf: { metricName: string }[] }).allOf[0]?.metricName);
    for (const metric of ["RestartCount", "Replicas", "is_db_alive", "storage_percent", "cpu_percent", "memory_percent"]) expect(serviceAlerts).toContain(metric);
    expect(plan.report.violations).toEqual([]);
  });
});

describe("BillingNamespace on its own", () => {
  it("refuses publicNetworkAccess Disabled without Premium and a private endpoint", async () => {
    const mocked: MockedResource[] = [];
    await pulumi.runtime.setMocks(azureMocks((r) => mocked.push(r)), "chargeguard", "test", false);
    const make = (sku: "Standard" | "Premium", privateEndpoint: boolean) => () =>
      new BillingNamespace(`ns-${sku}-${String(privateEndpoint)}`, { resourceGroupName: "rg", namespaceName: "sb-private-test", sku, publicNetworkAccess: "Disabled", privateEndpoint });
    expect(make("Standard", true)).toThrow(/publicNetworkAccess "Disabled" needs a Premium namespace with a private endpoint \(sku is Standard/);
    expect(make("Premium", false)).toThrow(/privateEndpoint false/);
    expect(make("Premium", true)).not.toThrow();
  });
});
