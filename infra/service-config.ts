// The whole-service sections of a stack (Pulumi.<stack>.yaml): observability, network, vault, database and app.
// Validated strictly like the rest (every problem named by its path), and the consumers' replica bounds are
// computed here, so a config whose max replicas, grace period or connections cannot be made safe is refused
// before anything is built. Free of Pulumi imports.
import { z } from "zod";
import { parseCidr, LARGEST_VNET_PREFIX } from "./network-plan.js";
import { consumerAppConfig, DEFAULT_MAX_CONCURRENT_CALLS } from "./consumer-app-config.js";
import { DEFAULT_RESERVED_CONNECTIONS, type ReplicaBounds, type ReplicaBudget, type QueueTuning, type ConsumerConcurrency, concurrencyProblems } from "../tuning/index.js";

/** What a consumer app needs of the queue it consumes (the stack's QueueConfig has it). */
export interface ConsumedQueue {
  name: string;
  consumerPrincipalId?: string | undefined;
  tuning: Pick<QueueTuning, "deliveryBudgetMs" | "budget">;
}

const PROJECT = "chargeguard";
/** Messages in flight per replica when a consumer does not say. */
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

const observabilitySchema = z.strictObject({
  workspaceName: z.string().min(4).max(63).optional(),
  appInsightsName: z.string().min(1).max(255).optional(),
  retentionInDays: whole("days").min(30).max(730, { error: "Log Analytics keeps data 30 to 730 days" }).optional(),
}, { error: "expected a map { workspaceName?, appInsightsName?, retentionInDays? }" });

const networkSchema = z.strictObject({
  vnetName: z.string({ error: "expected the VNet's name" }).min(2).max(64),
  addressSpace: z.string({ error: "expected an IPv4 CIDR block such as 10.40.0.0/16" }).refine((cidr) => {
    const parsed = parseCidr(cidr);
    return parsed !== undefined && parsed.prefix <= LARGEST_VNET_PREFIX;
  }, { error: `expected an IPv4 CIDR block of /${LARGEST_VNET_PREFIX} or larger starting at its network address (e.g. 10.40.0.0/16)` }),
}, { error: "expected a map { vnetName, addressSpace }" });

const vaultSchema = z.strictObject({
  name: z.string({ error: "expected the vault's name" }).regex(/^[A-Za-z](?!.*--)[A-Za-z0-9-]{1,22}[A-Za-z0-9]$/, {
    error: "a Key Vault name is 3-24 letters, digits or single hyphens, starting with a letter (globally unique)",
  }),
  softDeleteRetentionInDays: whole("days").min(7).max(90, { error: "Key Vault keeps deleted secrets 7 to 90 days" }).optional(),
  /** Secret names in the vault; their values are set out of band. */
  secrets: z.strictObject({
    stripeApiKey: z.string().regex(/^[A-Za-z0-9-]{1,127}$/).optional(),
    keybrakeApiKey: z.string().regex(/^[A-Za-z0-9-]{1,127}$/).optional(),
  }).optional(),
}, { error: "expected a map { name, softDeleteRetentionInDays?, secrets? }" });

const databaseSchema = z.strictObject({
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
}, { error: "expected a map { serverName, skuName, tier, maxConnections, ... }" });

const consumerSchema = z.strictObject({
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
}, { error: "expected a map { queue, image, ... } per consumer" });

const appSchema = z.strictObject({
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
}, { error: "expected a map { environmentName, registry?, stripe?, consumers }" });

export type ObservabilityInput = z.infer<typeof observabilitySchema>;
export type NetworkConfig = z.infer<typeof networkSchema>;
export type ConsumerInput = z.infer<typeof consumerSchema>;
export type AppInput = z.infer<typeof appSchema>;
type DatabaseInput = z.infer<typeof databaseSchema>;
type VaultInput = z.infer<typeof vaultSchema>;

export interface VaultConfig {
  name: string;
  softDeleteRetentionInDays: number;
  secrets: { stripeApiKey: string; keybrakeApiKey?: string };
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
}

export interface ConsumerConfig {
  queue: string;
  appName: string;
  identityName: string;
  image: string;
  cpu: number;
  memory: string;
  environment: Record<string, string>;
  /** What the bounds were computed from (the delivery budget is the queue's). */
  budget: Omit<ReplicaBudget, "deliveryBudgetMs">;
  bounds: ReplicaBounds;
}

export interface AppConfig {
  environmentName: string;
  registry?: { server: string; resourceId: string };
  stripe: { rateLimitPerSecond: number; endpointRateLimitPerSecond: number; utilization: number; fastestCallMs: number };
  consumers: ConsumerConfig[];
}

export interface ServiceConfig {
  observability: ObservabilityInput;
  network?: NetworkConfig;
  vault?: VaultConfig;
  database?: DatabaseConfig;
  app?: AppConfig;
}

interface ParseContext {
  production: boolean;
  problems: string[];
  section: <T>(key: string, schema: z.ZodType<T>, required: boolean) => T | undefined;
}

/** Sections that need another: production reaches everything through the VNet, an app needs its database and vault. */
function sectionDependencyProblems(values: Record<string, unknown>, production: boolean): string[] {
  const problems: string[] = [];
  const defined = (key: string) => values[`${PROJECT}:${key}`] !== undefined;
  if (production && !defined("network") && ["database", "vault", "app"].some(defined)) {
    problems.push(`${PROJECT}:network: required in production: the database, the vault and the namespace are reached only through the VNet`);
  }
  if (defined("app") && !defined("database")) problems.push(`${PROJECT}:database: required with ${PROJECT}:app (the consumers' guard database)`);
  if (defined("app") && !defined("vault")) problems.push(`${PROJECT}:vault: required with ${PROJECT}:app (the Stripe key is read from it)`);
  return problems;
}

/** The database section with its defaults (production: zone-redundant, 35 days of geo-redundant backups) and checks. */
function databaseConfig(databaseInput: DatabaseInput, production: boolean, problems: string[]): DatabaseConfig {
  const highAvailability = databaseInput.highAvailability ?? (production ? "ZoneRedundant" : "Disabled");
  const key = `${PROJECT}:database`;
  if (production && highAvailability !== "ZoneRedundant") {
    problems.push(`${key}.highAvailability: production runs ZoneRedundant (a zone outage must not stop billing)`);
  }
  if (highAvailability !== "Disabled" && databaseInput.tier === "Burstable") {
    problems.push(`${key}.highAvailability: Burstable servers have no high availability: use GeneralPurpose or MemoryOptimized`);
  }
  if (production && (databaseInput.administrators ?? []).length === 0) {
    problems.push(
      `${key}.administrators: production names its own Entra administrator (a DBA group or the deploying pipeline), so each consumer's identity gets a role owning only its schema instead of administering the server`,
    );
  }
  const reservedConnections = databaseInput.reservedConnections ?? DEFAULT_RESERVED_CONNECTIONS;
  if (reservedConnections >= databaseInput.maxConnections) {
    problems.push(`${key}.reservedConnections: ${reservedConnections} leaves none of maxConnections ${databaseInput.maxConnections} to the consumers`);
  }
  return {
    serverName: databaseInput.serverName,
    databaseName: databaseInput.databaseName ?? "billing",
    version: databaseInput.version ?? "16",
    skuName: databaseInput.skuName,
    tier: databaseInput.tier,
    storageSizeGB: databaseInput.storageSizeGB ?? 32,
    maxConnections: databaseInput.maxConnections,
    reservedConnections,
    highAvailability,
    backupRetentionDays: databaseInput.backupRetentionDays ?? (production ? 35 : 7),
    geoRedundantBackup: databaseInput.geoRedundantBackup ?? production,
    administrators: databaseInput.administrators ?? [],
  };
}

function vaultConfig(vaultInput: VaultInput): VaultConfig {
  return {
    name: vaultInput.name,
    softDeleteRetentionInDays: vaultInput.softDeleteRetentionInDays ?? 90,
    secrets: {
      stripeApiKey: vaultInput.secrets?.stripeApiKey ?? "stripe-api-key",
      ...(vaultInput.secrets?.keybrakeApiKey !== undefined ? { keybrakeApiKey: vaultInput.secrets.keybrakeApiKey } : {}),
    },
  };
}

/** Parses the service sections; `validateAgainstQueues` then checks each consumer against its queue and computes its bounds. */
export function parseServiceSections(values: Record<string, unknown>, context: ParseContext) {
  const { production, problems, section } = context;
  const observability = section("observability", observabilitySchema, false) ?? {};
  const network = section("network", networkSchema, false);
  const vaultInput = section("vault", vaultSchema, false);
  const databaseInput = section("database", databaseSchema, false);
  const appInput = section("app", appSchema, false);

  problems.push(...sectionDependencyProblems(values, production));
  const database = databaseInput ? databaseConfig(databaseInput, production, problems) : undefined;
  const vault = vaultInput && vaultConfig(vaultInput);

  const config: ServiceConfig = {
    observability,
    ...(network ? { network } : {}),
    ...(vault ? { vault } : {}),
    ...(database ? { database } : {}),
  };

  return {
    config,
    /**
     * How the app consumer of a queue runs its messages, so the queue is tuned for it (its lock and renewal cover a
     * wait for a Stripe slot); undefined when no app consumes the queue here.
     */
    concurrencyFor(queueName: string): ConsumerConcurrency | undefined {
      const consumer = appInput?.consumers.find((entry) => entry.queue === queueName);
      if (!consumer) return undefined;
      const maxConcurrentCalls = consumer.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS;
      const concurrency = { maxConcurrentCalls, maxConcurrentStripeCalls: consumer.maxConcurrentStripeCalls ?? maxConcurrentCalls };
      // A concurrency that is wrong in itself is reported once, against the consumer (validateAgainstQueues).
      return concurrencyProblems(concurrency).length === 0 ? concurrency : undefined;
    },
    /** Each consumer against its queue; fills `config.app` with computed bounds. */
    validateAgainstQueues(queues: readonly ConsumedQueue[], problemsOut: string[]) {
      // Without a valid database there is no connection budget: its own problem is reported already.
      if (!appInput || !database) return;
      config.app = consumerAppConfig(appInput, database, queues, problemsOut);
    },
  };
}


