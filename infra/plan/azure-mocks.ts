// Pulumi mocks that answer like Azure enough for the billing stack to run offline: each resource gets an ARM-shaped
// id and its `name` output from the Azure name *input* (namespaceName, queueName, ...). Without that, azure-native's
// output-only `name` stays undefined and inputs that depend on it are silently dropped.
import type * as pulumi from "@pulumi/pulumi";

/** A placeholder subscription: plans never see a real one. */
export const PLAN_SUBSCRIPTION_ID = "00000000-0000-0000-0000-000000000000";

export interface MockedResource {
  type: string;
  /** Pulumi's logical name. */
  name: string;
  custom: boolean;
  inputs: Record<string, unknown>;
  id: string;
  /** What the mock answered: inputs plus `name` (the Azure name) and `id`. */
  state: Record<string, unknown>;
}

/** Each type's Azure name input: a change to it replaces the resource. */
export const AZURE_NAME_INPUT: Record<string, string> = {
  "azure-native:servicebus:Namespace": "namespaceName",
  "azure-native:servicebus:Queue": "queueName",
  "azure-native:servicebus:QueueAuthorizationRule": "authorizationRuleName",
  "azure-native:servicebus:NamespaceAuthorizationRule": "authorizationRuleName",
  "azure-native:monitor:ActionGroup": "actionGroupName",
  "azure-native:monitor:MetricAlert": "ruleName",
  "azure-native:monitor:DiagnosticSetting": "name",
  "azure-native:authorization:RoleAssignment": "roleAssignmentName",
  "azure-native:authorization:ManagementLockByScope": "lockName",
  "azure-native:monitor:ScheduledQueryRule": "ruleName",
  "azure-native:operationalinsights:Workspace": "workspaceName",
  "azure-native:applicationinsights:Component": "resourceName",
  "azure-native:managedidentity:UserAssignedIdentity": "resourceName",
  "azure-native:keyvault:Vault": "vaultName",
  "azure-native:dbforpostgresql:Server": "serverName",
  "azure-native:dbforpostgresql:Database": "databaseName",
  "azure-native:dbforpostgresql:Configuration": "configurationName",
  "azure-native:dbforpostgresql:FirewallRule": "firewallRuleName",
  "azure-native:dbforpostgresql:AdministratorsMicrosoftEntra": "objectId",
  "azure-native:network:VirtualNetwork": "virtualNetworkName",
  "azure-native:network:Subnet": "subnetName",
  "azure-native:network:PrivateEndpoint": "privateEndpointName",
  "azure-native:network:PublicIPAddress": "publicIpAddressName",
  "azure-native:network:NatGateway": "natGatewayName",
  "azure-native:app:Job": "jobName",
  "azure-native:network:PrivateDnsZoneGroup": "privateDnsZoneGroupName",
  "azure-native:privatedns:PrivateZone": "privateZoneName",
  "azure-native:privatedns:VirtualNetworkLink": "virtualNetworkLinkName",
  "azure-native:app:ManagedEnvironment": "environmentName",
  "azure-native:app:ContainerApp": "containerAppName",
};

/** Resource providers of the types whose ids are plain `<group>/providers/<provider>/<name>`. */
const PROVIDER_PATH: Record<string, string> = {
  "azure-native:monitor:ScheduledQueryRule": "Microsoft.Insights/scheduledQueryRules",
  "azure-native:operationalinsights:Workspace": "Microsoft.OperationalInsights/workspaces",
  "azure-native:applicationinsights:Component": "Microsoft.Insights/components",
  "azure-native:managedidentity:UserAssignedIdentity": "Microsoft.ManagedIdentity/userAssignedIdentities",
  "azure-native:keyvault:Vault": "Microsoft.KeyVault/vaults",
  "azure-native:dbforpostgresql:Server": "Microsoft.DBforPostgreSQL/flexibleServers",
  "azure-native:network:VirtualNetwork": "Microsoft.Network/virtualNetworks",
  "azure-native:network:PrivateEndpoint": "Microsoft.Network/privateEndpoints",
  "azure-native:network:PublicIPAddress": "Microsoft.Network/publicIPAddresses",
  "azure-native:network:NatGateway": "Microsoft.Network/natGateways",
  "azure-native:privatedns:PrivateZone": "Microsoft.Network/privateDnsZones",
  "azure-native:app:ManagedEnvironment": "Microsoft.App/managedEnvironments",
  "azure-native:app:ContainerApp": "Microsoft.App/containerApps",
  "azure-native:app:Job": "Microsoft.App/jobs",
};

/** Pulumi's wire marker of a secret value (what mocks receive for `pulumi.secret(...)` inputs). */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
export const REDACTED = "[secret]";

/**
 * The inputs with every secret replaced by "[secret]": what the plan may print. The SDK marks a whole top-level
 * property secret when anything inside it is (an app's `template` holding the secret Application Insights connection
 * string): such a property keeps its structure, so policies and the plan can read it, when it holds a secret value
 * the mocks know (`known`: the scalar secrets seen, the secret outputs they answered), and only those values are
 * redacted; a lifted property holding none of them is redacted whole.
 */
export function redactSecrets(value: unknown, known: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, known));
  if (typeof value === "object" && value !== null) {
    if (SECRET_SIG in value) {
      const inner = (value as { value?: unknown }).value;
      return typeof inner === "object" && inner !== null && holdsKnown(inner, known) ? redactSecrets(inner, known) : REDACTED;
    }
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactSecrets(item, known)]));
  }
  return typeof value === "string" && known.has(value) ? REDACTED : value;
}

function holdsKnown(value: unknown, known: ReadonlySet<string>): boolean {
  if (typeof value === "string") return known.has(value);
  if (typeof value === "object" && value !== null) return Object.values(value).some((item) => holdsKnown(item, known));
  return false;
}

/** Adds every scalar secret in `value` to `known`. */
function collectSecrets(value: unknown, known: Set<string>): void {
  if (typeof value !== "object" || value === null) return;
  const inner = SECRET_SIG in value ? (value as { value?: unknown }).value : undefined;
  if (typeof inner === "string") known.add(inner);
  for (const item of Object.values(value)) collectSecrets(item, known);
}

/** Outputs Azure returns that the program marks secret (additionalSecretOutputs). */
const SECRET_OUTPUTS: Record<string, string[]> = { "azure-native:applicationinsights:Component": ["connectionString", "instrumentationKey"] };

/** A stable fake GUID per name, so identities' principal and client ids differ and repeat across plans. */
function fakeGuid(seed: string): string {
  let hash = 0x811c9dc5;
  const hex: string[] = [];
  for (let round = 0; round < 4; round++) {
    for (const char of `${round}:${seed}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
    hex.push(hash.toString(16).padStart(8, "0"));
  }
  const all = hex.join("");
  return `${all.slice(0, 8)}-${all.slice(8, 12)}-${all.slice(12, 16)}-${all.slice(16, 20)}-${all.slice(20, 32)}`;
}

/** Output-only properties the program reads from a resource, answered like Azure would. */
function computedState(type: string, azureName: string): Record<string, unknown> {
  switch (type) {
    case "azure-native:managedidentity:UserAssignedIdentity":
      return { principalId: fakeGuid(`principal:${azureName}`), clientId: fakeGuid(`client:${azureName}`), tenantId: PLAN_TENANT_ID };
    case "azure-native:operationalinsights:Workspace":
      return { customerId: fakeGuid(`workspace:${azureName}`) };
    case "azure-native:applicationinsights:Component":
      return { connectionString: `InstrumentationKey=${fakeGuid(`appinsights:${azureName}`)};IngestionEndpoint=https://westeurope-0.in.applicationinsights.azure.com/` };
    case "azure-native:dbforpostgresql:Server":
      return { fullyQualifiedDomainName: `${azureName}.postgres.database.azure.com` };
    default:
      return {};
  }
}

export const PLAN_TENANT_ID = "00000000-0000-0000-0000-0000000000aa";

const str = (value: unknown, fallback: string) => (typeof value === "string" && value !== "" ? value : fallback);

function armId(type: string, azureName: string, inputs: Record<string, unknown>): string {
  const group = `/subscriptions/${PLAN_SUBSCRIPTION_ID}/resourceGroups/${str(inputs.resourceGroupName, "unknown-rg")}`;
  const namespace = `${group}/providers/Microsoft.ServiceBus/namespaces/${str(inputs.namespaceName, "unknown-namespace")}`;
  switch (type) {
    case "azure-native:servicebus:Namespace":
      return `${group}/providers/Microsoft.ServiceBus/namespaces/${azureName}`;
    case "azure-native:servicebus:Queue":
      return `${namespace}/queues/${azureName}`;
    case "azure-native:servicebus:QueueAuthorizationRule":
      return `${namespace}/queues/${str(inputs.queueName, "unknown-queue")}/authorizationRules/${azureName}`;
    case "azure-native:servicebus:NamespaceAuthorizationRule":
      return `${namespace}/authorizationRules/${azureName}`;
    case "azure-native:monitor:ActionGroup":
      return `${group}/providers/Microsoft.Insights/actionGroups/${azureName}`;
    case "azure-native:monitor:MetricAlert":
      return `${group}/providers/Microsoft.Insights/metricAlerts/${azureName}`;
    case "azure-native:monitor:DiagnosticSetting":
      return `${str(inputs.resourceUri, group)}/providers/Microsoft.Insights/diagnosticSettings/${azureName}`;
    case "azure-native:authorization:RoleAssignment":
      return `${str(inputs.scope, group)}/providers/Microsoft.Authorization/roleAssignments/${azureName}`;
    case "azure-native:authorization:ManagementLockByScope":
      return `${str(inputs.scope, group)}/providers/Microsoft.Authorization/locks/${azureName}`;
    case "azure-native:network:Subnet":
      return `${group}/providers/Microsoft.Network/virtualNetworks/${str(inputs.virtualNetworkName, "unknown-vnet")}/subnets/${azureName}`;
    case "azure-native:dbforpostgresql:Database":
    case "azure-native:dbforpostgresql:Configuration":
    case "azure-native:dbforpostgresql:FirewallRule":
    case "azure-native:dbforpostgresql:AdministratorsMicrosoftEntra": {
      const kind = { Database: "databases", Configuration: "configurations", FirewallRule: "firewallRules", AdministratorsMicrosoftEntra: "administrators" }[type.split(":")[2] as string];
      return `${group}/providers/Microsoft.DBforPostgreSQL/flexibleServers/${str(inputs.serverName, "unknown-server")}/${kind}/${azureName}`;
    }
    default:
      if (PROVIDER_PATH[type]) return `${group}/providers/${PROVIDER_PATH[type]}/${azureName}`;
      return `${group}/mock/${azureName}`;
  }
}

/** Mocks that record every registered resource into `record`. */
export function azureMocks(record: (resource: MockedResource) => void): pulumi.runtime.Mocks {
  const known = new Set<string>();
  return {
    newResource(args) {
      const inputs = (args.inputs ?? {}) as Record<string, unknown>;
      const nameInput = AZURE_NAME_INPUT[args.type];
      const azureName = str(nameInput ? inputs[nameInput] : undefined, args.name);
      const custom = args.custom !== false;
      const id = custom ? armId(args.type, azureName, inputs) : `${args.name}_id`;
      const state: Record<string, unknown> = { ...inputs, name: azureName, id, ...computedState(args.type, azureName) };
      if (args.type === "azure-native:keyvault:Vault") {
        state.properties = { ...(inputs.properties as object), vaultUri: `https://${azureName}.vault.azure.net/` };
      }
      collectSecrets(inputs, known);
      for (const output of SECRET_OUTPUTS[args.type] ?? []) if (typeof state[output] === "string") known.add(state[output]);
      const shown = redactSecrets(inputs, known) as Record<string, unknown>;
      record({ type: args.type, name: args.name, custom, inputs: shown, id, state: redactSecrets(state, known) as Record<string, unknown> });
      return { id, state };
    },
    call(args) {
      switch (args.token) {
        case "azure-native:authorization:getClientConfig":
          return { clientId: fakeGuid("deployer-client"), objectId: fakeGuid("deployer-object"), subscriptionId: PLAN_SUBSCRIPTION_ID, tenantId: PLAN_TENANT_ID };
        case "azure-native:keyvault:getSecret": {
          // The phase-two lookup: offline, every named secret is taken as present (its value is never returned).
          const { resourceGroupName, vaultName, secretName } = args.inputs as { resourceGroupName: string; vaultName: string; secretName: string };
          return {
            id: `/subscriptions/${PLAN_SUBSCRIPTION_ID}/resourceGroups/${resourceGroupName}/providers/Microsoft.KeyVault/vaults/${vaultName}/secrets/${secretName}`,
            name: secretName,
            properties: { secretUri: `https://${vaultName}.vault.azure.net/secrets/${secretName}`, secretUriWithVersion: `https://${vaultName}.vault.azure.net/secrets/${secretName}/${"0".repeat(32)}` },
          };
        }
        case "azure-native:operationalinsights:getSharedKeys":
          return { primarySharedKey: "plan-shared-key", secondarySharedKey: "plan-shared-key-2" };
        default:
          throw new Error(`the offline plan has no mock for the call ${args.token}`);
      }
    },
  };
}
