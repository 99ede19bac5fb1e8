// Who may hold the Manage claim on a billing queue: KEDA's azure-servicebus scaler reads queue runtime properties,
// which needs Manage (Azure Service Bus Data Owner), so a scale rule whose identity lacks it never scales; and a
// consumer that holds it could create, delete or reconfigure queues. This stack policy checks both sides: every
// scale rule's identity holds Data Owner on the rule's own queue, and nobody else holds Data Owner, least of all an
// app's own identity (AZURE_CLIENT_ID). Plain policy objects; only type imports from @pulumi/policy.
import type { PolicyResource, StackValidationArgs, StackValidationPolicy } from "@pulumi/policy";
import { builtInRoles } from "../specs/index.js";
import { list, obj, ofType } from "./policy-helpers.js";
import { types } from "./resource-types.js";

type Props = Record<string, unknown>;
const lower = (value: unknown) => (typeof value === "string" ? value.toLowerCase() : undefined);
const USER_ASSIGNED_IDENTITY = "azure-native:managedidentity:UserAssignedIdentity";

const isDataOwner = (assignment: PolicyResource) => lower(String(assignment.props.roleDefinitionId ?? "").split("/").pop()) === builtInRoles.serviceBusDataOwner;
const envValue = (app: Props, name: string) =>
  list(obj(list(obj(app.template).containers)[0]).env).map(obj).find((entry) => entry.name === name)?.value;

interface ScaleRuleIdentity {
  app: string;
  rule: string;
  queueName: string;
  identityId: string;
}

function scaleRuleIdentities(args: StackValidationArgs): ScaleRuleIdentity[] {
  return ofType(args, types.containerApp).flatMap((app) =>
    list(obj(obj(app.props.template).scale).rules)
      .map(obj)
      .filter((rule) => obj(rule.custom).type === "azure-servicebus" && typeof obj(rule.custom).identity === "string")
      .map((rule) => ({
        app: String(app.props.containerAppName ?? app.name),
        rule: String(rule.name ?? "?"),
        queueName: String(obj(obj(rule.custom).metadata).queueName ?? ""),
        identityId: String(obj(rule.custom).identity),
      })),
  );
}

export const scalerManageRight: StackValidationPolicy = {
  name: "consumer-scaler-manage-right",
  description:
    "Every azure-servicebus scale rule's identity holds Azure Service Bus Data Owner (the Manage claim KEDA needs to read queue runtime properties) on the rule's queue; no other principal holds Data Owner, and an app's own identity (AZURE_CLIENT_ID) never does.",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    const identities = ofType(args, USER_ASSIGNED_IDENTITY);
    const queues = ofType(args, types.queue);
    const owners = ofType(args, types.roleAssignment).filter(isDataOwner);
    const principalOf = (identityId: string) => identities.find((identity) => lower(identity.props.id) === lower(identityId))?.props.principalId;
    const scalerPrincipals = new Set<unknown>();
    for (const scaler of scaleRuleIdentities(args)) {
      const principal = principalOf(scaler.identityId);
      scalerPrincipals.add(principal);
      const queue = queues.find((candidate) => lower(candidate.props.queueName) === lower(scaler.queueName));
      const owns = owners.some((grant) => principal !== undefined && grant.props.principalId === principal && lower(grant.props.scope) === lower(queue?.props.id));
      if (!owns) {
        report(
          `app ${scaler.app}: scale rule ${scaler.rule}'s identity holds no Azure Service Bus Data Owner on queue ${scaler.queueName}: KEDA cannot read the queue's runtime properties (Manage claim) and never scales`,
        );
      }
    }
    for (const grant of owners) {
      if (!scalerPrincipals.has(grant.props.principalId)) {
        report(`role assignment ${String(grant.props.roleAssignmentName ?? grant.name)} grants Azure Service Bus Data Owner to a principal that is no scale rule's identity: only KEDA's scaler needs Manage`, grant.urn);
      }
    }
    for (const app of ofType(args, types.containerApp)) {
      const clientId = envValue(app.props, "AZURE_CLIENT_ID");
      const own = identities.find((identity) => clientId !== undefined && identity.props.clientId === clientId);
      if (own && owners.some((grant) => grant.props.principalId === own.props.principalId)) {
        report(`app ${String(app.props.containerAppName ?? app.name)}: its own identity (AZURE_CLIENT_ID) holds Azure Service Bus Data Owner: the consumer must not manage queues; give the scale rule its own identity`, app.urn);
      }
    }
  },
};

export const scalerIdentityPlatformOnly: StackValidationPolicy = {
  name: "consumer-scaler-identity-platform-only",
  description:
    "Every azure-servicebus scale rule's identity is listed in its app's configuration.identitySettings with lifecycle None: only the platform (KEDA) uses it, the container cannot request its token and so cannot use its Manage right on the queue.",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    const apps = ofType(args, types.containerApp);
    for (const scaler of scaleRuleIdentities(args)) {
      const app = apps.find((candidate) => String(candidate.props.containerAppName ?? candidate.name) === scaler.app);
      const settings = list(obj(app?.props.configuration).identitySettings).map(obj);
      const setting = settings.find((entry) => lower(entry.identity) === lower(scaler.identityId));
      if (setting?.lifecycle !== "None") {
        report(
          `app ${scaler.app}: scale rule ${scaler.rule}'s identity is ${setting ? `available to containers (lifecycle ${String(setting.lifecycle ?? "All")})` : "not in configuration.identitySettings, so available to every container"}: give it lifecycle "None" so the consumer's code cannot take its token (Data Owner on the queue)`,
          app?.urn,
        );
      }
    }
  },
};
