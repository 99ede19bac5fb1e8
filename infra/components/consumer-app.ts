// One billing consumer on Container Apps, scaled by KEDA from its queue. Every bound is computed (replicaBounds):
// max replicas from the Stripe rate and database connection budgets, the grace period from the queue's delivery
// budget (SIGTERM, then SIGKILL after it: in-flight charges finish), KEDA's messageCount from the consumer's
// messages in flight, never fewer than one replica. The scale rule signs in with its own user-assigned identity
// (ScalerIdentity: Manage on the queue; no SAS: local auth stays off); secrets are Key Vault references read through the same identity; the app is
// created only after its role assignments exist. The environment follows the consumer's run contract.
import * as pulumi from "@pulumi/pulumi";
import { ContainerApp } from "@pulumi/azure-native/app/index.js";
import { replicaBounds, type ReplicaBounds, type ReplicaBudget } from "../../tuning/index.js";
import { consumerProbes, HEALTH_PORT, REPLICA_BUDGET_TAG_NAME } from "../specs/index.js";
import type { BillingQueue } from "./billing-queue.js";
import type { ConsumerIdentity } from "./consumer-identity.js";
import type { ScalerIdentity } from "./scaler-identity.js";

/** A Container Apps secret read from Key Vault, handed to the container as an environment variable. */
export interface VaultSecretReference {
  /** The secret's name in the app (lowercase letters, digits, '-'). */
  name: string;
  /** The run contract's variable, e.g. STRIPE_API_KEY. */
  env: string;
  /** Versionless Key Vault secret URL. */
  keyVaultUrl: pulumi.Input<string>;
}

export interface ConsumerAppArgs {
  resourceGroupName: pulumi.Input<string>;
  location?: pulumi.Input<string>;
  appName: string;
  environmentId: pulumi.Input<string>;
  identity: ConsumerIdentity;
  /** KEDA's own identity: Data Owner (Manage) on the queue, which the consumer's identity never holds. */
  scaler: ScalerIdentity;
  queue: BillingQueue;
  /** The namespace's name (KEDA's `namespace` metadata) and host (the consumer's SERVICEBUS_FULLY_QUALIFIED_NAMESPACE). */
  namespaceName: pulumi.Input<string>;
  image: string;
  registryServer?: string;
  cpu: number;
  memory: string;
  /** The budgets the replica bounds come from (the delivery budget is the queue's). */
  budget: Omit<ReplicaBudget, "deliveryBudgetMs">;
  /** The guard database: DATABASE_URL without a password, DATABASE_AUTH=entra. */
  database?: { host: pulumi.Input<string>; databaseName: string };
  secrets: VaultSecretReference[];
  /** Plain settings of the run contract (e.g. BILLING_PERIOD_CAP_CENTS). */
  environment?: Record<string, string>;
  appInsightsConnectionString?: pulumi.Input<string>;
  tags?: Record<string, pulumi.Input<string>>;
  /**
   * Further resources the app must wait for (its database mapping, the vault's private endpoint): a component's own
   * dependsOn would not hold back its child, so they go on the Container App itself.
   */
  dependsOn?: pulumi.Resource[];
}


/** One setting of the consumer's container: a plain value or a reference to one of the app's Key Vault secrets. */
interface EnvVar {
  name: string;
  value?: pulumi.Input<string>;
  secretRef?: string;
}

/**
 * What the consumer reads at start: where its queue is, who it is, its concurrency and Stripe ceiling, the probes'
 * port, its guard database, telemetry, the operator's own settings and its secrets.
 */
function consumerEnv(args: ConsumerAppArgs): EnvVar[] {
  const { queue, identity, budget } = args;
  return [
    { name: "SERVICEBUS_FULLY_QUALIFIED_NAMESPACE", value: pulumi.interpolate`${args.namespaceName}.servicebus.windows.net` },
    { name: "SERVICEBUS_QUEUE", value: queue.queueName },
    { name: "AZURE_CLIENT_ID", value: identity.clientId },
    { name: "MAX_CONCURRENT_CALLS", value: String(budget.maxConcurrentCalls) },
    { name: "MAX_CONCURRENT_STRIPE_CALLS", value: String(budget.maxConcurrentStripeCalls) },
    // The app's fleet-wide Stripe ceiling: the same budget its max replicas come from (stripeRatePerConsumer).
    { name: "STRIPE_REQUESTS_PER_SECOND", value: String(budget.stripeRatePerSecond) },
    // The generated consumer answers its probes (consumerProbes) on this port.
    { name: "HEALTH_PORT", value: String(HEALTH_PORT) },
    ...(args.database
      ? [
          {
            name: "DATABASE_URL",
            value: pulumi.interpolate`postgres://${encodeURIComponent(identity.identityName)}@${args.database.host}:5432/${args.database.databaseName}?sslmode=require`,
          },
          { name: "DATABASE_AUTH", value: "entra" },
        ]
      : []),
    ...(args.appInsightsConnectionString !== undefined
      ? // A Pulumi secret (encrypted in state); the exporter signs in as AZURE_CLIENT_ID (local auth is off).
        [{ name: "APPLICATIONINSIGHTS_CONNECTION_STRING", value: pulumi.secret(args.appInsightsConnectionString) }]
      : []),
    ...Object.entries(args.environment ?? {}).map(([key, value]) => ({ name: key, value })),
    ...args.secrets.map((secret) => ({ name: secret.env, secretRef: secret.name })),
  ];
}

export class ConsumerApp extends pulumi.ComponentResource {
  readonly app: ContainerApp;
  readonly bounds: ReplicaBounds;

  constructor(name: string, args: ConsumerAppArgs, opts?: pulumi.ComponentResourceOptions) {
    super("chargeguard:infra:ConsumerApp", name, {}, opts);
    const { queue, identity, scaler, budget } = args;
    this.bounds = replicaBounds({ ...budget, deliveryBudgetMs: queue.tuning.deliveryBudgetMs });
    const recorded = {
      maxConcurrentCalls: budget.maxConcurrentCalls,
      maxConcurrentStripeCalls: budget.maxConcurrentStripeCalls,
      stripeRatePerSecond: budget.stripeRatePerSecond,
      ...(budget.fastestStripeCallMs !== undefined ? { fastestStripeCallMs: budget.fastestStripeCallMs } : {}),
      connectionBudget: budget.connectionBudget,
      ...(budget.zoneRedundant === true ? { zoneRedundant: true } : {}),
    };

    const env = consumerEnv(args);

    this.app = new ContainerApp(
      name,
      {
        resourceGroupName: args.resourceGroupName,
        location: args.location,
        containerAppName: args.appName,
        managedEnvironmentId: args.environmentId,
        workloadProfileName: "Consumption",
        // The scale rule's identity must be one of the app's; the consumer signs in as AZURE_CLIENT_ID (its own).
        identity: { type: "UserAssigned", userAssignedIdentities: [identity.resourceId, scaler.resourceId] },
        configuration: {
          activeRevisionsMode: "Single",
          // The scaler's identity serves the platform only (the scale rule): the container cannot get a token for it,
          // so a compromised consumer cannot use its Manage right on the queue. The consumer's identity serves the
          // main container (and the platform: Key Vault references, image pulls).
          identitySettings: [
            { identity: identity.resourceId, lifecycle: "Main" },
            { identity: scaler.resourceId, lifecycle: "None" },
          ],
          secrets: args.secrets.map((secret) => ({ name: secret.name, keyVaultUrl: secret.keyVaultUrl, identity: identity.resourceId })),
          ...(args.registryServer ? { registries: [{ server: args.registryServer, identity: identity.resourceId }] } : {}),
        },
        template: {
          terminationGracePeriodSeconds: this.bounds.terminationGracePeriodSeconds,
          containers: [
            { name: "consumer", image: args.image, resources: { cpu: args.cpu, memory: args.memory }, env, probes: consumerProbes.map((probe) => ({ ...probe, httpGet: { ...probe.httpGet } })) },
          ],
          scale: {
            minReplicas: this.bounds.minReplicas,
            maxReplicas: this.bounds.maxReplicas,
            rules: [
              {
                name: "servicebus-queue",
                custom: {
                  type: "azure-servicebus",
                  identity: scaler.resourceId,
                  metadata: { namespace: args.namespaceName, queueName: queue.queueName, messageCount: String(this.bounds.messageCount) },
                },
              },
            ],
          },
        },
        tags: { ...args.tags, [REPLICA_BUDGET_TAG_NAME]: JSON.stringify(recorded) },
      },
      // RBAC first: a Key Vault reference or image pull made before the grants exist fails the revision.
      { parent: this, dependsOn: [...identity.roleAssignments, scaler.roleAssignment, queue, ...(args.dependsOn ?? [])] },
    );

    this.registerOutputs({ appId: this.app.id, bounds: this.bounds });
  }
}
