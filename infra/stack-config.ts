// The stack configuration of the per-environment Pulumi project (Pulumi.<stack>.yaml), validated strictly.
// Free of Pulumi imports: the `chargeguard sandbox` and `plan` commands read stacks without loading the Azure SDK.
// Every problem is collected (unknown keys, wrong types, `P5M` locks, budgets that cannot be made safe) and
// reported together, one sentence each.
import { z } from "zod";
import { ChargeguardError } from "../errors/index.js";
import { issuesOf, isSecureValue, securePaths, type SecureValue } from "./config-issues.js";
import { parseServiceSections, type ServiceConfig } from "./service-config.js";
import { DEFAULT_BACKLOG_THRESHOLD, DEFAULT_RETRY_BACKLOG_THRESHOLD, defaultSeverities, type AlertSeverities } from "./alert-specs.js";
import { flowNames, flowStripeCalls, MIN_TTL_MS, SERIAL_CONSUMER, TuningError, tuneQueue, type ConsumerConcurrency, type LatencyBudget, type QueueTuning } from "../tuning/index.js";

/** The Pulumi project name: config keys are `chargeguard:<key>`. */
export const PROJECT = "chargeguard";
export const skus = ["Basic", "Standard", "Premium"] as const;
export type Sku = (typeof skus)[number];

/** Stacks treated as production unless `chargeguard:production` says otherwise (the policy pack's default too). */
export const DEFAULT_PRODUCTION_STACKS = ["prod", "production"];

export class StackConfigError extends ChargeguardError {
  override readonly name = "StackConfigError";
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(
      `${source} has ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n${problems.map((p) => `  - ${p}`).join("\n")}`,
    );
  }
}

const wholeNumber = (what: string) => z.int({ error: `expected a whole number of ${what}` });
const severity = z.int({ error: "expected a whole number" }).min(0).max(4, { error: "Azure Monitor severities run from 0 (critical) to 4 (verbose)" });

const principalType = z.enum(["ServicePrincipal", "User", "Group"], {
  error: "expected ServicePrincipal (managed identities, the default), User or Group",
});

const stripeSchema = z.strictObject(
  {
    timeoutMs: wholeNumber("milliseconds"),
    maxNetworkRetries: wholeNumber("retries"),
    threeDsP99Ms: wholeNumber("milliseconds").optional(),
  },
  { error: "expected a map { timeoutMs, maxNetworkRetries, threeDsP99Ms? } as the Stripe client is configured" },
);

const queueSchema = z.strictObject({
  name: z
    .string({ error: "expected the queue's name as a string" })
    .regex(/^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,258}[A-Za-z0-9])?$/, {
      error: "a queue name is 1-260 letters, digits, '.', '-' or '_', starting and ending with a letter or digit",
    }),
  stripe: stripeSchema,
  processingMs: wholeNumber("milliseconds").optional(),
  safetyMarginMs: wholeNumber("milliseconds").optional(),
  maxDeliveryCount: wholeNumber("deliveries").optional(),
  renewal: z.boolean({ error: "expected true or false" }).optional(),
  lockDuration: z.string({ error: 'expected an ISO 8601 duration such as "PT2M"' }).optional(),
  /** The billing flow its consumer runs (`chargeguard new consumer --flow`): its Stripe calls size the hold. */
  flow: z.enum(flowNames, { error: `expected one of the runtime's flows: ${flowNames.join(", ")}` }).optional(),
  consumerPrincipalId: z.guid({ error: "expected the consumer's Entra object id (a GUID)" }).optional(),
  producerPrincipalId: z.guid({ error: "expected the producer's Entra object id (a GUID)" }).optional(),
  consumerPrincipalType: principalType.optional(),
  producerPrincipalType: principalType.optional(),
  operatorPrincipalIds: z.array(z.guid({ error: "expected an operator's Entra object id (a GUID)" }), { error: "expected a list of Entra object ids" }).optional(),
  operatorPrincipalType: principalType.optional(),
}, { error: "expected a map { name, stripe, ... } per queue" });

const namespaceSchema = z.strictObject({
  name: z
    .string({ error: "expected the namespace name as a string" })
    .regex(/^[A-Za-z][A-Za-z0-9-]{4,48}[A-Za-z0-9]$/, {
      error: "a namespace name is 6-50 letters, digits or hyphens, starting with a letter and ending with a letter or digit",
    })
    .refine((name) => !/-(sb|mgmt)$/i.test(name), { error: 'a namespace name cannot end with "-sb" or "-mgmt"' }),
  sku: z.enum(skus, { error: `expected one of ${skus.join(", ")}` }),
  capacity: z.union([z.literal(1), z.literal(2), z.literal(4), z.literal(8), z.literal(16)], {
    error: "Premium capacity (messaging units) is 1, 2, 4, 8 or 16",
  }).optional(),
  disableLocalAuth: z.boolean({ error: "expected true or false" }).optional(),
  publicNetworkAccess: z.enum(["Enabled", "Disabled", "SecuredByPerimeter"], {
    error: "expected Enabled, Disabled or SecuredByPerimeter",
  }).optional(),
  minimumTlsVersion: z.enum(["1.2", "1.3"], { error: 'expected "1.2" or "1.3" (older TLS is refused)' }).optional(),
  zoneRedundant: z.boolean({ error: "expected true or false" }).optional(),
  logAnalyticsWorkspaceId: z
    .string({ error: "expected a Log Analytics workspace resource id" })
    .regex(/^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.OperationalInsights\/workspaces\/[^/]+$/i, {
      error: "expected /subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.OperationalInsights/workspaces/<name>",
    })
    .optional(),
}, { error: "expected a map { name, sku, disableLocalAuth?, ... }" });

const alertsSchema = z.strictObject({
  emails: z.array(z.email({ error: "expected an e-mail address" }), { error: "expected a list of e-mail addresses" }).optional(),
  webhooks: z
    .array(
      z.strictObject({
        name: z.string({ error: "expected a receiver name" }).min(1),
        // A webhook URL usually carries a key: write it with `pulumi config set --secret --path` ({ secure: ... }).
        url: z.union([z.url({ protocol: /^https$/, error: "expected an https:// URL" }), z.custom<SecureValue>(isSecureValue)], {
          error: "expected an https:// URL, or a secure value ({ secure: ... }, from pulumi config set --secret --path)",
        }),
      }),
      { error: "expected a list of { name, url }" },
    )
    .optional(),
  actionGroupShortName: z.string().min(1).max(12, { error: "Azure limits an action group's short name to 12 characters" }).optional(),
  backlogThreshold: wholeNumber("messages").min(1).optional(),
  retryBacklogThreshold: wholeNumber("scheduled messages").min(1).optional(),
  severities: z
    .strictObject({
      deadLettered: severity.optional(),
      throttled: severity.optional(),
      serverErrors: severity.optional(),
      abandoned: severity.optional(),
      backlog: severity.optional(),
      userErrors: severity.optional(),
      retryBacklog: severity.optional(),
    })
    .optional(),
}, { error: "expected a map { emails?, webhooks?, severities?, ... }" });

export type NamespaceInput = z.infer<typeof namespaceSchema>;
export type QueueInput = z.infer<typeof queueSchema>;
export type AlertsInput = z.infer<typeof alertsSchema>;

export interface NamespaceConfig {
  name: string;
  sku: Sku;
  capacity?: number;
  disableLocalAuth: boolean;
  publicNetworkAccess: "Enabled" | "Disabled" | "SecuredByPerimeter";
  minimumTlsVersion: "1.2" | "1.3";
  zoneRedundant?: boolean;
  logAnalyticsWorkspaceId?: string;
}

export interface AlertsConfig {
  emails: string[];
  /** A secure URL stays `{ secure }` when read from the stack file (the plan); `pulumi up` hands the program the decrypted string. */
  webhooks: { name: string; url: string | SecureValue }[];
  actionGroupShortName: string;
  backlogThreshold: number;
  retryBacklogThreshold: number;
  severities: AlertSeverities;
}

export interface QueueConfig extends QueueInput {
  /** The latency budget handed to tuneQueue (the queue's stripe/processing/... fields). */
  budget: LatencyBudget;
  tuning: QueueTuning;
}

export interface StackConfig extends ServiceConfig {
  /** Production stacks get delete locks, private networking, HA and the production policies. */
  production: boolean;
  /**
   * The first phase of a first deployment: everything but the consumer apps (vault, identities and their role
   * assignments, database, network), so the Stripe key can be put in the vault and the grants can propagate before
   * an app reads them. See infra/README.md, "Deploy".
   */
  bootstrap: boolean;
  /** A maintenance window: the data resources' delete locks are lifted so a day-two change may delete under them. */
  maintenance: boolean;
  location: string;
  resourceGroupName: string;
  namespace: NamespaceConfig;
  alerts: AlertsConfig;
  queues: QueueConfig[];
}


const KNOWN_KEYS = ["resourceGroupName", "production", "bootstrap", "maintenance", "namespace", "alerts", "queues", "observability", "network", "vault", "database", "app"] as const;
/** The only places a `{ secure: ... }` value is accepted: everything else is not a secret and must stay readable. */
const SECURE_PATH = /^chargeguard:alerts\.webhooks\[\d+\]\.url$/;
const LOCATION_KEY = "azure-native:location";


function budgetOf(queue: QueueInput, concurrency: ConsumerConcurrency | undefined): LatencyBudget {
  const { stripe, processingMs, safetyMarginMs, maxDeliveryCount, renewal, lockDuration } = queue;
  const budget: LatencyBudget = { stripe };
  // The app consumer's concurrency: a wait for a Stripe slot is part of what the lock must cover. A multi-call flow
  // (invoice) holds a message one delivery budget per Stripe call, with or without an app (tuning's flowStripeCalls).
  const calls = flowStripeCalls[queue.flow ?? "payment-intent"];
  if (calls > 1) budget.concurrency = { ...(concurrency ?? SERIAL_CONSUMER), stripeCallsPerMessage: calls };
  else if (concurrency !== undefined) budget.concurrency = concurrency;
  if (processingMs !== undefined) budget.processingMs = processingMs;
  if (safetyMarginMs !== undefined) budget.safetyMarginMs = safetyMarginMs;
  if (maxDeliveryCount !== undefined) budget.maxDeliveryCount = maxDeliveryCount;
  if (renewal !== undefined) budget.renewal = renewal;
  if (lockDuration !== undefined) budget.lockDuration = lockDuration;
  return budget;
}

/** Keys and secure values: every key is `<namespace>:<key>`, ours are known, and only webhook URLs are secure. */
function keyProblems(values: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    for (const path of securePaths(key, value)) {
      if (!SECURE_PATH.test(path)) problems.push(`${path}: secure values are accepted only in chargeguard:alerts.webhooks[].url; this setting is not a secret`);
    }
  }
  return problems;
}

function keyNameProblems(values: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(values)) {
    const [namespace, name, ...rest] = key.split(":");
    if (name === undefined || rest.length > 0) {
      problems.push(`${key}: config keys are "<namespace>:<key>", e.g. "${PROJECT}:queues"`);
    } else if (namespace === PROJECT && !(KNOWN_KEYS as readonly string[]).includes(name)) {
      problems.push(`${key}: unknown key (known: ${KNOWN_KEYS.map((k) => `${PROJECT}:${k}`).join(", ")})`);
    }
  }
  return problems;
}

/** Where the stack goes: the Azure region and the resource group. */
function placementProblems(location: unknown, resourceGroupName: unknown): string[] {
  const problems: string[] = [];
  if (typeof location !== "string" || location.trim() === "") {
    problems.push(`${LOCATION_KEY}: required, the Azure region as a string (e.g. westeurope)`);
  }
  if (typeof resourceGroupName !== "string" || !/^[-\w.()]{0,89}[-\w()]$/.test(resourceGroupName)) {
    problems.push(
      `${PROJECT}:resourceGroupName: required, 1-90 letters, digits, '-', '_', '.', '(' or ')' not ending in '.' (got ${JSON.stringify(resourceGroupName)})`,
    );
  }
  return problems;
}

/** Reads one `chargeguard:<key>` section through its schema; a problem goes to `problems` and gives undefined. */
function sectionReader(values: Record<string, unknown>, problems: string[]) {
  return <T>(key: string, schema: z.ZodType<T>, required: boolean): T | undefined => {
    const value = values[`${PROJECT}:${key}`];
    if (value === undefined) {
      if (required) problems.push(`${PROJECT}:${key}: required`);
      return undefined;
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      problems.push(...issuesOf(`${PROJECT}:${key}`, parsed.error));
      return undefined;
    }
    return parsed.data;
  };
}

/** What the namespace's tier allows: private endpoints, messaging units and zone redundancy are Premium only. */
function namespaceTierProblems(namespace: NamespaceInput | undefined, privateNetwork: boolean): string[] {
  const problems: string[] = [];
  if (namespace?.publicNetworkAccess === "Disabled" && (namespace.sku !== "Premium" || !privateNetwork)) {
    problems.push(
      `${PROJECT}:namespace.publicNetworkAccess: "Disabled" needs a Premium namespace reached through a private endpoint (set sku: Premium and a ${PROJECT}:network section); otherwise nothing can reach the namespace`,
    );
  }
  if (namespace && privateNetwork && namespace.sku !== "Premium") {
    problems.push(`${PROJECT}:network: private endpoints for Service Bus are Premium only: set ${PROJECT}:namespace.sku to Premium`);
  }
  if (namespace && namespace.sku !== "Premium") {
    if (namespace.capacity !== undefined) problems.push(`${PROJECT}:namespace.capacity: only Premium namespaces have messaging units`);
    if (namespace.zoneRedundant !== undefined) problems.push(`${PROJECT}:namespace.zoneRedundant: only Premium namespaces choose zone redundancy`);
  }
  return problems;
}

/** One queue tuned from its budget (and its app consumer's concurrency), or undefined with its problems reported. */
function queueConfig(
  queue: QueueInput,
  label: string,
  sku: Sku | undefined,
  concurrency: ConsumerConcurrency | undefined,
  problems: string[],
): QueueConfig | undefined {
  const budget = budgetOf(queue, concurrency);
  try {
    const tuning = tuneQueue(budget);
    if (sku === "Basic" && tuning.defaultMessageTimeToLiveMs > MIN_TTL_MS) {
      problems.push(
        `${label}: all deliveries could hold a message for longer than Basic's 14-day TTL (${tuning.defaultMessageTimeToLive}): use Standard or Premium, or lower maxDeliveryCount or the Stripe budget`,
      );
    }
    return { ...queue, budget, tuning };
  } catch (error) {
    if (!(error instanceof TuningError)) throw error;
    problems.push(...error.problems.map((problem) => `${label}: ${problem}`));
    return undefined;
  }
}

/** The queues section: each queue validated, its name unique (case-insensitively) and its tuning computed. */
function parseQueues(
  rawQueues: unknown,
  sku: Sku | undefined,
  concurrencyFor: (queueName: string) => ConsumerConcurrency | undefined,
  problems: string[],
): QueueConfig[] {
  const queues: QueueConfig[] = [];
  if (rawQueues === undefined) {
    problems.push(`${PROJECT}:queues: required, a list of at least one queue`);
    return queues;
  }
  if (!Array.isArray(rawQueues) || rawQueues.length === 0) {
    problems.push(`${PROJECT}:queues: expected a list of at least one queue`);
    return queues;
  }
  const seen = new Map<string, number>();
  rawQueues.forEach((raw, index) => {
    const key = `${PROJECT}:queues[${index}]`;
    const parsed = queueSchema.safeParse(raw);
    if (!parsed.success) {
      problems.push(...issuesOf(key, parsed.error));
      return;
    }
    const queue = parsed.data;
    const label = `${key} (${queue.name})`;
    const first = seen.get(queue.name.toLowerCase());
    if (first !== undefined) {
      problems.push(`${label}: the name repeats queues[${first}] (Service Bus names are case-insensitive)`);
    } else {
      seen.set(queue.name.toLowerCase(), index);
    }
    const config = queueConfig(queue, label, sku, concurrencyFor(queue.name), problems);
    if (config) queues.push(config);
  });
  return queues;
}

function alertsConfig(alerts: AlertsInput): AlertsConfig {
  return {
    emails: alerts.emails ?? [],
    webhooks: alerts.webhooks ?? [],
    actionGroupShortName: alerts.actionGroupShortName ?? "billing",
    backlogThreshold: alerts.backlogThreshold ?? DEFAULT_BACKLOG_THRESHOLD,
    retryBacklogThreshold: alerts.retryBacklogThreshold ?? DEFAULT_RETRY_BACKLOG_THRESHOLD,
    severities: { ...defaultSeverities, ...alerts.severities },
  };
}

/**
 * Validates stack config values keyed as Pulumi keys them (`chargeguard:queues`, `azure-native:location`).
 * Values are already structured (YAML-parsed, or JSON-decoded from Pulumi's config strings).
 * Throws a StackConfigError listing every problem.
 */
export function parseStackConfig(values: Record<string, unknown>, source = "stack config", stack?: string): StackConfig {
  const problems: string[] = keyProblems(values);
  const production = values[`${PROJECT}:production`] ?? (stack !== undefined && DEFAULT_PRODUCTION_STACKS.includes(stack));
  if (typeof production !== "boolean") problems.push(`${PROJECT}:production: expected true or false`);
  const bootstrap = values[`${PROJECT}:bootstrap`] ?? false;
  if (typeof bootstrap !== "boolean") problems.push(`${PROJECT}:bootstrap: expected true (the first phase: no consumer apps yet) or false`);
  const maintenance = values[`${PROJECT}:maintenance`] ?? false;
  if (typeof maintenance !== "boolean") problems.push(`${PROJECT}:maintenance: expected true (lift the delete locks for a day-two change) or false`);
  problems.push(...keyNameProblems(values));
  const location = values[LOCATION_KEY];
  const resourceGroupName = values[`${PROJECT}:resourceGroupName`];
  problems.push(...placementProblems(location, resourceGroupName));

  const section = sectionReader(values, problems);
  const namespace = section("namespace", namespaceSchema, true);
  const alerts = section("alerts", alertsSchema, false) ?? {};
  const service = parseServiceSections(values, { production: production === true, problems, section });
  problems.push(...namespaceTierProblems(namespace, service.config.network !== undefined));
  const queues = parseQueues(values[`${PROJECT}:queues`], namespace?.sku, service.concurrencyFor, problems);

  service.validateAgainstQueues(queues, problems);
  if (problems.length > 0 || !namespace) throw new StackConfigError(source, problems);
  return {
    production: production === true,
    bootstrap: bootstrap === true,
    maintenance: maintenance === true,
    ...service.config,
    location: location as string,
    resourceGroupName: resourceGroupName as string,
    namespace: {
      ...namespace,
      disableLocalAuth: namespace.disableLocalAuth ?? true,
      publicNetworkAccess: namespace.publicNetworkAccess ?? "Enabled",
      minimumTlsVersion: namespace.minimumTlsVersion ?? "1.2",
    },
    alerts: alertsConfig(alerts),
    queues,
  };
}
