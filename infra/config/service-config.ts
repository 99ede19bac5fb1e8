// The whole-service sections of a stack (Pulumi.<stack>.yaml): observability, network, vault, database and app.
// Validated strictly like the rest (every problem named by its path), and the consumers' replica bounds are
// computed here, so a config whose max replicas, grace period or connections cannot be made safe is refused
// before anything is built. Free of Pulumi imports.
import type { z } from "zod";
import { consumerAppConfig, DEFAULT_MAX_CONCURRENT_CALLS } from "./consumer-app-config.js";
import {
  appSchema,
  databaseSchema,
  networkSchema,
  observabilitySchema,
  vaultSchema,
  type ConsumedQueue,
  type DatabaseConfig,
  type DatabaseInput,
  type ServiceConfig,
  type VaultConfig,
  type VaultInput,
} from "./service-schemas.js";
import { DEFAULT_RESERVED_CONNECTIONS, type ConsumerConcurrency, concurrencyProblems } from "../../tuning/index.js";

export type { AppConfig, ConsumedQueue, ConsumerConfig, DatabaseConfig, NetworkConfig, ServiceConfig, VaultConfig } from "./service-schemas.js";

const PROJECT = "chargeguard";


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
    ...(databaseInput.restoreFrom ? { restoreFrom: databaseInput.restoreFrom } : {}),
    retain: databaseInput.retain === true,
    privateDnsZoneName: databaseInput.privateDnsZoneName ?? `${databaseInput.serverName}.private.postgres.database.azure.com`,
  };
}

function vaultConfig(vaultInput: VaultInput): VaultConfig {
  return {
    name: vaultInput.name,
    softDeleteRetentionInDays: vaultInput.softDeleteRetentionInDays ?? 90,
    secrets: {
      stripeApiKey: vaultInput.secrets?.stripeApiKey ?? "stripe-api-key",
      ...(vaultInput.secrets?.keybrakeApiKey !== undefined ? { keybrakeApiKey: vaultInput.secrets.keybrakeApiKey } : {}),
      stripeAuditKey: vaultInput.secrets?.stripeAuditKey ?? "stripe-audit-key",
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
      // The stack program puts a networked environment in every zone (infra/program/consumer-apps.ts).
      config.app = consumerAppConfig(appInput, database, queues, problemsOut, config.network !== undefined);
    },
  };
}


