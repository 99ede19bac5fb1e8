// The chargeguard CrossGuard policies, as plain policy objects. ./index.ts wraps them in a PolicyPack for
// `pulumi preview --policy-pack infra/policy`; tests and the offline plan call validateResource/validateStack
// directly (constructing a PolicyPack starts a gRPC server and keeps the process alive).
// Only type imports from @pulumi/policy: resources are recognised by their type token, so this module loads
// neither the policy server nor the Azure SDK.
import type {
  PolicyResource,
  ReportViolation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";
import { dataRoleNameOf, DEAD_LETTER_METRIC, decodeQueueMetadata } from "../specs/index.js";
import {
  consumerQueueRights,
  coverageProblems,
  LOCK_MAX_MS,
  LOCK_MIN_MS,
  MAX_DELIVERY_COUNT,
  MIN_DELIVERY_COUNT,
  parseIsoDuration,
} from "../../tuning/index.js";

import { DEFAULT_PRODUCTION_STACKS, forType, isProductionStack, productionConfigSchema, stackOfUrn, type ProductionConfig } from "./policy-helpers.js";
import { isType, types } from "./resource-types.js";
import { servicePolicies } from "./service-policies.js";

export { types, isType, DEFAULT_PRODUCTION_STACKS, stackOfUrn };

const queueLabel = (props: Record<string, unknown>, fallback: string) =>
  typeof props.queueName === "string" ? props.queueName : typeof props.name === "string" ? props.name : fallback;

export const queueLockDuration: ResourceValidationPolicy = {
  name: "billing-queue-lock-duration",
  description: "A queue's lock duration is a strict ISO 8601 duration within 5 s..5 min and, with the consumer's renewal, covers the queue's latency budget.",
  enforcementLevel: "mandatory",
  validateResource: forType(types.queue, (props, args, report) => {
    const name = queueLabel(props, args.name);
    const metadata = decodeQueueMetadata(props.userMetadata);
    if (props.lockDuration === undefined) {
      if (metadata) report(`queue ${name}: lockDuration is not set, so Azure's default PT1M applies: set the tuned lock`);
      return;
    }
    let lockMs: number;
    try {
      lockMs = parseIsoDuration(String(props.lockDuration));
    } catch (error) {
      report(`queue ${name}: lockDuration ${(error as Error).message}`);
      return;
    }
    if (lockMs < LOCK_MIN_MS || lockMs > LOCK_MAX_MS) {
      report(`queue ${name}: lockDuration ${String(props.lockDuration)} is outside Service Bus's 5 s..5 min (PT5S..PT5M)`);
      return;
    }
    if (!metadata) return;
    for (const problem of coverageProblems(metadata.budget, {
      lockDurationMs: lockMs,
      maxAutoLockRenewalDurationInMs: metadata.consumer.maxAutoLockRenewalDurationInMs,
    })) {
      report(`queue ${name}: ${problem}`);
    }
  }),
};

export const queueMaxDeliveryCount: ResourceValidationPolicy = {
  name: "billing-queue-max-delivery-count",
  description: `A queue's MaxDeliveryCount is ${MIN_DELIVERY_COUNT}..${MAX_DELIVERY_COUNT}: fewer dead-letters billing events on the first crash, more lets poison messages loop.`,
  enforcementLevel: "mandatory",
  validateResource: forType(types.queue, (props, args, report) => {
    const count = props.maxDeliveryCount;
    if (count === undefined) return; // Azure's default, 10, is within bounds
    if (typeof count !== "number" || !Number.isInteger(count) || count < MIN_DELIVERY_COUNT || count > MAX_DELIVERY_COUNT) {
      report(`queue ${queueLabel(props, args.name)}: maxDeliveryCount ${String(count)} is outside ${MIN_DELIVERY_COUNT}..${MAX_DELIVERY_COUNT}`);
    }
  }),
};

export const queueDeadLetterOnExpiry: ResourceValidationPolicy = {
  name: "billing-queue-dead-letter-on-expiry",
  description: "Expired billing events go to the dead-letter queue (and its alert), never silently away.",
  enforcementLevel: "mandatory",
  validateResource: forType(types.queue, (props, args, report) => {
    if (props.deadLetteringOnMessageExpiration !== true) {
      report(`queue ${queueLabel(props, args.name)}: set deadLetteringOnMessageExpiration: true, or expired billing events vanish`);
    }
  }),
};

export const namespaceMinimumTls: ResourceValidationPolicy = {
  name: "servicebus-minimum-tls-1-2",
  description: "Service Bus namespaces refuse TLS older than 1.2.",
  enforcementLevel: "mandatory",
  validateResource: forType(types.namespace, (props, args, report) => {
    const version = props.minimumTlsVersion;
    if (version !== "1.2" && version !== "1.3") {
      report(`namespace ${queueLabel(props, args.name)}: minimumTlsVersion is ${JSON.stringify(version)}: set "1.2" or "1.3"`);
    }
  }),
};

export const namespaceLocalAuthInProduction: ResourceValidationPolicy = {
  name: "servicebus-local-auth-disabled-in-prod",
  description: "In production stacks namespaces disable local (SAS key) auth: applications use Entra ID identities.",
  enforcementLevel: "mandatory",
  configSchema: productionConfigSchema,
  validateResource: forType(types.namespace, (props, args, report) => {
    const stack = stackOfUrn(args.urn);
    if (!isProductionStack(args.urn, args.getConfig<ProductionConfig>())) return;
    if (props.disableLocalAuth !== true) {
      report(`namespace ${String(props.namespaceName ?? args.name)}: stack ${String(stack)} is production: set disableLocalAuth: true (Entra ID only)`);
    }
  }),
};

const rightsOf = (props: Record<string, unknown>) => (Array.isArray(props.rights) ? props.rights.map(String) : []);

export const noManageRules: ResourceValidationPolicy = {
  name: "servicebus-no-manage-rule",
  description: "No application key carries Manage rights: no namespace-level Manage rule (the RootManageSharedAccessKey kind), no queue rule with Manage.",
  enforcementLevel: "mandatory",
  validateResource: [
    forType(types.namespaceRule, (props, args, report) => {
      if (rightsOf(props).includes("Manage")) {
        report(`namespace rule ${String(props.authorizationRuleName ?? args.name)} grants Manage on the whole namespace: give applications queue-level Listen-only or Send-only rules, or Entra roles`);
      }
    }),
    forType(types.queueRule, (props, args, report) => {
      if (rightsOf(props).includes("Manage")) {
        report(`queue rule ${String(props.authorizationRuleName ?? args.name)} grants Manage: consumers need ${consumerQueueRights.sasRights.join(" and ")} only, producers Send only`);
      }
    }),
  ],
};

/** The entity part of a Service Bus resource id: queue (or topic/subscription) scope, or wider. */
function serviceBusEntityScope(scope: string): "entity" | "namespace" | "wider" {
  if (/\/providers\/Microsoft\.ServiceBus\/namespaces\/[^/]+\/(queues|topics)\/[^/]+/i.test(scope)) return "entity";
  if (/\/providers\/Microsoft\.ServiceBus\/namespaces\/[^/]+\/?$/i.test(scope)) return "namespace";
  return "wider";
}

export const dataRolesAtQueueScope: ResourceValidationPolicy = {
  name: "servicebus-data-roles-queue-scoped",
  description: `Service Bus data roles are granted on one queue, never on the namespace or wider. A consumer holds ${consumerQueueRights.roles.join(" and ")} on its own queue; Data Owner (Manage) only a KEDA scaler's own identity on its queue (policy consumer-scaler-manage-right checks who holds it).`,
  enforcementLevel: "mandatory",
  validateResource: (args: ResourceValidationArgs, report: ReportViolation) => {
    if (!isType(args.type, types.roleAssignment)) return;
    const roleGuid = String(args.props.roleDefinitionId ?? "").split("/").pop()?.toLowerCase() ?? "";
    const role = dataRoleNameOf[roleGuid];
    if (role === undefined) return; // not a Service Bus data role
    const label = `role assignment ${String(args.props.roleAssignmentName ?? args.name)}`;
    const scope = args.props.scope;
    if (typeof scope !== "string") return; // unknown until the queue exists: checked again at update
    const width = serviceBusEntityScope(scope);
    if (width !== "entity") {
      report(`${label} grants ${role} on ${width === "namespace" ? "the whole namespace" : "a scope wider than a namespace"} (${scope}): grant it on the one queue the identity uses${role === "Azure Service Bus Data Owner" ? " (Data Owner manages entities: only a KEDA scaler needs it, on its queue)" : ""}`);
    }
  },
};

interface AlertCriterion {
  metricName?: unknown;
  dimensions?: { name?: unknown; operator?: unknown; values?: unknown }[];
}

function alertWatchesQueue(alert: PolicyResource, queueName: string, namespaceName: string | undefined): boolean {
  const props = alert.props;
  if (props.enabled !== true) return false;
  const scopes = Array.isArray(props.scopes) ? props.scopes.map(String) : [];
  if (namespaceName !== undefined && !scopes.some((scope) => scope.toLowerCase().endsWith(`/namespaces/${namespaceName.toLowerCase()}`))) {
    return false;
  }
  const criteria = props.criteria as { allOf?: AlertCriterion[] } | undefined;
  return (criteria?.allOf ?? []).some(
    (criterion) =>
      criterion.metricName === DEAD_LETTER_METRIC &&
      (criterion.dimensions ?? []).some(
        (dimension) =>
          dimension.name === "EntityName" &&
          dimension.operator === "Include" &&
          Array.isArray(dimension.values) &&
          dimension.values.some((value) => value === "*" || String(value).toLowerCase() === queueName.toLowerCase()),
      ),
  );
}

const hasActions = (alert: PolicyResource) => Array.isArray(alert.props.actions) && alert.props.actions.length > 0;

function namespaceOfQueue(queue: PolicyResource): string | undefined {
  if (typeof queue.props.namespaceName === "string") return queue.props.namespaceName;
  const id = typeof queue.props.id === "string" ? queue.props.id : "";
  return /\/namespaces\/([^/]+)\/queues\//i.exec(id)?.[1];
}

export const deadLetterAlertPerQueue: StackValidationPolicy = {
  name: "billing-queue-dead-letter-alert",
  description: "Every queue has an enabled DeadletteredMessages alert (EntityName = the queue, scoped to its namespace) that notifies someone.",
  enforcementLevel: "mandatory",
  validateStack: (args: StackValidationArgs, report: ReportViolation) => {
    const alerts = args.resources.filter((resource) => isType(resource.type, types.metricAlert));
    for (const queue of args.resources.filter((resource) => isType(resource.type, types.queue))) {
      const name = queueLabel(queue.props, queue.name);
      const watching = alerts.filter((alert) => alertWatchesQueue(alert, name, namespaceOfQueue(queue)));
      if (watching.length === 0) {
        report(`queue ${name} has no enabled DeadletteredMessages alert with EntityName = ${name}: dead-lettered billing events would go unnoticed`, queue.urn);
      } else if (!watching.some(hasActions)) {
        report(`queue ${name}: its dead-letter alert has no action group, so nobody is told: add e-mail or webhook receivers`, queue.urn);
      }
    }
  },
};

/** The Service Bus policies; `billingPolicies` (./index of policies) adds the service's. */
export const serviceBusPolicies: (ResourceValidationPolicy | StackValidationPolicy)[] = [
  queueLockDuration,
  queueMaxDeliveryCount,
  queueDeadLetterOnExpiry,
  deadLetterAlertPerQueue,
  namespaceMinimumTls,
  namespaceLocalAuthInProduction,
  noManageRules,
  dataRolesAtQueueScope,
];

/** Every chargeguard policy, in the order the plan reports them. */
export const billingPolicies: (ResourceValidationPolicy | StackValidationPolicy)[] = [...serviceBusPolicies, ...servicePolicies];
