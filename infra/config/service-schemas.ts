// The shapes of the whole-service sections of a stack (Pulumi.<stack>.yaml): each section's schema (what the file
// may say, every field checked) and the parsed config the program gets. Free of Pulumi imports; the parsing with its
// defaults and cross-checks is service-config.ts, each consumer against its queue consumer-app-config.ts.
import { z } from "zod";
import { parseCidr, LARGEST_VNET_PREFIX } from "./network-plan.js";
import type { QueueTuning, ReplicaBounds, ReplicaBudget } from "../../tuning/index.js";

/** What a consumer app needs of the queue it consumes (the stack's QueueConfig has it). */
export interface ConsumedQueue {
  name: string;
  consumerPrincipalId?: string | undefined;
  tuning: Pick<QueueTuning, "deliveryBudgetMs" | "budget">;
}

const whole = (what: string) => z.int({ error: `expected a whole number of ${what}` });
const bool = () => z.boolean({ error: "expected true or false" });
const guid = (what: string) => z.guid({ error: `expected ${what} (a GUID)` });
const azureResourceId = z.string({ error: "expected an Azure resource id" }).regex(/^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/.+/i, {
  error: "expected /subscriptions/<id>/resourceGroups/<rg>/providers/...",
});
const dnsLabel = (what: string, min: number, max: number) =>
  z.string({ error: `expected the ${what} as a string` }).regex(new RegExp(`^[a-z][a-z0-9-]{${min - 2},${max - 2}}[a-z0-9]$`), {
    error: `a ${what} is ${min}-${max} lowercase letters, digits or hyphens, starting with a letter`,
  });

export const observabilitySchema = z.strictObject({
  workspaceName: z.string().min(4).max(63).optional(),
  appInsightsName: z.string().min(1).max(255).optional(),
  retentionInDays: whole("days").min(30).max(730, { error: "Log Analytics keeps data 30 to 730 days" }).optional(),
}, { error: "expected a map { workspaceName?, appInsightsName?, retentionInDays? }" });

export const networkSchema = z.strictObject({
  vnetName: z.string({ error: "expected the VNet's name" }).min(2).max(64),
  addressSpace: z.string({ error: "expected an IPv4 CIDR block such as 10.40.0.0/16" }).refine((cidr) => {
    const parsed = parseCidr(cidr);
    return parsed !== undefined && parsed.prefix <= LARGEST_VNET_PREFIX;
  }, { error: `expected an IPv4 CIDR block of /${LARGEST_VNET_PREFIX} or larger starting at its network address (e.g. 10.40.0.0/16)` }),
}, { error: "expected a map { vnetName, addressSpace }" });

export const vaultSchema = z.strictObject({
  name: z.string({ error: "expected the vault's name" }).regex(/^[A-Za-z](?!.*--)[A-Za-z0-9-]{1,22}[A-Za-z0-9]$/, {
    error: "a Key Vault name is 3-24 letters, digits or single hyphens, starting with a letter (globally unique)",
  }),
  softDeleteRetentionInDays: whole("days").min(7).max(90, { error: "Key Vault keeps deleted secrets 7 to 90 days" }).optional(),
  /** Secret names in the vault; their values are set out of band. */
  secrets: z.strictObject({
    stripeApiKey: z.string().regex(/^[A-Za-z0-9-]{1,127}$/).optional(),
    keybrakeApiKey: z.string().regex(/^[A-Za-z0-9-]{1,127}$/).optional(),
    /** The nightly audit's restricted read-only Stripe key (rk_...), never the consumers' write key. */
    stripeAuditKey: z.string().regex(/^[A-Za-z0-9-]{1,127}$/).optional(),
  }).optional(),
}, { error: "expected a map { name, softDeleteRetentionInDays?, secrets? }" });

export const databaseSchema = z.strictObject({
  serverName: dnsLabel("server name", 3, 63),
  databaseName: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, { error: "a database name is a lowercase identifier" }).optional(),
  version: z.enum(["16", "17"], { error: 'the guard needs PostgreSQL "16" or "17"' }).optional(),
  skuName: z.string({ error: "expected a SKU name such as Standard_D2ds_v5 or Standard_B1ms" }),
  tier: z.enum(["Burstable", "GeneralPurpose", "MemoryOptimized"], { error: "expected Burstable, GeneralPurpose or MemoryOptimized" }),
  storageSizeGB: whole("GiB").min(32).max(32_768).optional(),
  maxConnections: whole("connections").min(25).max(5000, { error: "PostgreSQL Flexible allows max_connections up to 5000" }),
  reservedConnections: whole("connections").min(0).optional(),
  highAvailability: z.enum(["ZoneRedundant", "SameZone", "Disabled"], { error: "expected ZoneRedundant, SameZone or Disabled" }).optional(),
  backupRetentionDays: whole("days").min(7).max(35, { error: "PostgreSQL Flexible keeps backups 7 to 35 days" }).optional(),
  geoRedundantBackup: bool().optional(),
  administrators: z.array(z.strictObject({
    objectId: guid("the administrator's Entra object id"),
    principalName: z.string().min(1),
    principalType: z.enum(["User", "Group", "ServicePrincipal"]),
  })).optional(),
  /** Day two, restore to a point in time: the server `serverName` is created from this one's backups (infra/README.md). */
  restoreFrom: z.strictObject({
    serverName: dnsLabel("server name", 3, 63),
    pointInTime: z.iso.datetime({ error: 'expected the UTC time to restore to, e.g. "2026-12-07T09:55:00Z"' }),
  }, { error: "expected a map { serverName, pointInTime }" }).optional(),
  /** Pulumi forgets the server and what is under it instead of deleting them (retainOnDelete): set before a restore. */
  retain: bool().optional(),
  /** The private DNS zone the server resolves in (default `<serverName>.private.postgres.database.azure.com`). */
  privateDnsZoneName: z.string().regex(/^[a-z0-9-]+(\.[a-z0-9-]+)*\.postgres\.database\.azure\.com$/, { error: "expected a zone ending in .postgres.database.azure.com" }).optional(),
}, { error: "expected a map { serverName, skuName, tier, maxConnections, ... }" });

export const consumerSchema = z.strictObject({
  queue: z.string({ error: "expected the name of a queue in chargeguard:queues" }),
  appName: dnsLabel("container app name", 2, 32).optional(),
  identityName: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{2,127}$/).optional(),
  image: z.string({ error: "expected the consumer image, e.g. myregistry.azurecr.io/usage-billing-consumer:1.0.0" }).regex(/^[^\s:]+(:[\w.-]+|@sha256:[a-f0-9]{64})$/, {
    error: "expected an image reference with a tag or digest, e.g. myregistry.azurecr.io/usage-billing-consumer:1.0.0",
  }),
  cpu: z.number({ error: "expected vCPUs such as 0.5" }).min(0.25).max(4).optional(),
  memory: z.string().regex(/^\d+(\.\d+)?Gi$/, { error: 'expected memory such as "1Gi" (2 x the vCPUs)' }).optional(),
  maxConcurrentCalls: whole("messages").min(1).max(256).optional(),
  maxConcurrentStripeCalls: whole("calls").min(1).max(256).optional(),
  minReplicas: z.int({ error: "expected a whole number of replicas" }).optional(),
  maxReplicas: z.int({ error: "expected a whole number of replicas" }).optional(),
  stripeRatePerSecond: z.number({ error: "expected Stripe calls per second" }).positive().optional(),
  environment: z.record(z.string().regex(/^[A-Z][A-Z0-9_]*$/), z.string(), { error: "expected a map of plain settings (NAME: value)" }).optional(),
  /** A consumer added to a running stack, its first phase: identity and grants, no app until its database role exists. */
  bootstrap: z.boolean({ error: "expected true (its identity and grants now, its app once its database role exists) or false" }).optional(),
}, { error: "expected a map { queue, image, ... } per consumer" });

export const appSchema = z.strictObject({
  environmentName: z.string({ error: "expected the Container Apps environment's name" }).min(2).max(60),
  registry: z.strictObject({ server: z.string().regex(/^[a-z0-9.-]+$/), resourceId: azureResourceId }).optional(),
  stripe: z.strictObject({
    /** Stripe's default in live mode is 100 operations per second (25 in test mode); ask Stripe for more. */
    rateLimitPerSecond: z.number().positive().optional(),
    /** One endpoint's limit (25/s by default): a consumer's charges all hit one endpoint. */
    endpointRateLimitPerSecond: z.number().positive().optional(),
    utilization: z.number().gt(0).max(1).optional(),
    fastestCallMs: whole("milliseconds").min(1).optional(),
  }).optional(),
  consumers: z.array(consumerSchema, { error: "expected a list of consumers" }).min(1, { error: "expected at least one consumer" }),
  /** The nightly double-charge audit (a Container Apps Job): cron in UTC, and the image holding the chargeguard CLI. */
  audit: z.strictObject({
    schedule: z.string().regex(/^(\S+\s+){4}\S+$/, { error: 'expected a five-field cron expression such as "0 3 * * *"' }).optional(),
    image: z.string().regex(/^[^\s:]+(:[\w.-]+|@sha256:[a-f0-9]{64})$/, { error: "expected an image reference with a tag or digest" }).optional(),
  }, { error: "expected a map { schedule?, image? }" }).optional(),
}, { error: "expected a map { environmentName, registry?, stripe?, consumers, audit? }" });

export type ObservabilityInput = z.infer<typeof observabilitySchema>;
export type NetworkConfig = z.infer<typeof networkSchema>;
export type ConsumerInput = z.infer<typeof consumerSchema>;
export type AppInput = z.infer<typeof appSchema>;
export type DatabaseInput = z.infer<typeof databaseSchema>;
export type VaultInput = z.infer<typeof vaultSchema>;

export interface VaultConfig {
  name: string;
  softDeleteRetentionInDays: number;
  secrets: { stripeApiKey: string; keybrakeApiKey?: string; stripeAuditKey: string };
}

export interface DatabaseConfig {
  serverName: string;
  databaseName: string;
  version: "16" | "17";
  skuName: string;
  tier: "Burstable" | "GeneralPurpose" | "MemoryOptimized";
  storageSizeGB: number;
  maxConnections: number;
  reservedConnections: number;
  highAvailability: "ZoneRedundant" | "SameZone" | "Disabled";
  backupRetentionDays: number;
  geoRedundantBackup: boolean;
  administrators: { objectId: string; principalName: string; principalType: "User" | "Group" | "ServicePrincipal" }[];
  /** The server this one is restored from, and the point in time (Day two: restore the guard database). */
  restoreFrom?: { serverName: string; pointInTime: string };
  /** Pulumi forgets rather than deletes the server and everything under it (retainOnDelete), protect and locks aside. */
  retain: boolean;
  privateDnsZoneName: string;
}

export interface ConsumerConfig {
  queue: string;
  appName: string;
  identityName: string;
  image: string;
  cpu: number;
  memory: string;
  environment: Record<string, string>;
  /**
   * Its first phase on a running stack (infra/README.md, Day two: add a consumer): its identity and grants are
   * deployed, its app is not, so the DBA can create its database role first. Its budgets count from this phase on.
   */
  bootstrap: boolean;
  /** What the bounds were computed from (the delivery budget is the queue's). */
  budget: Omit<ReplicaBudget, "deliveryBudgetMs">;
  bounds: ReplicaBounds;
}

export interface AppConfig {
  environmentName: string;
  registry?: { server: string; resourceId: string };
  stripe: { rateLimitPerSecond: number; endpointRateLimitPerSecond: number; utilization: number; fastestCallMs: number };
  consumers: ConsumerConfig[];
  /** The nightly audit job: its schedule (default every night at 03:00 UTC) and image (default the first consumer's). */
  audit: { schedule: string; image: string };
}

export interface ServiceConfig {
  observability: ObservabilityInput;
  network?: NetworkConfig;
  vault?: VaultConfig;
  database?: DatabaseConfig;
  app?: AppConfig;
}
