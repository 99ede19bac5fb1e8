// Resource type tokens the policies police, matched the way Pulumi's own aliases allow: an explicit API version
// (`azure-native:servicebus/v20240101:Queue`), the module renames of azure-native v3 (`insights` -> `monitor`) and
// renamed resources (`network:InterfaceEndpoint` -> `network:PrivateEndpoint`) are the same resource. A policy that
// compared one exact token would let a versioned or v2-named resource through.

export const types = {
  namespace: "azure-native:servicebus:Namespace",
  queue: "azure-native:servicebus:Queue",
  namespaceRule: "azure-native:servicebus:NamespaceAuthorizationRule",
  queueRule: "azure-native:servicebus:QueueAuthorizationRule",
  namespaceNetworkRuleSet: "azure-native:servicebus:NamespaceNetworkRuleSet",
  metricAlert: "azure-native:monitor:MetricAlert",
  scheduledQueryRule: "azure-native:monitor:ScheduledQueryRule",
  actionGroup: "azure-native:monitor:ActionGroup",
  diagnosticSetting: "azure-native:monitor:DiagnosticSetting",
  lock: "azure-native:authorization:ManagementLockByScope",
  roleAssignment: "azure-native:authorization:RoleAssignment",
  privateEndpoint: "azure-native:network:PrivateEndpoint",
  containerApp: "azure-native:app:ContainerApp",
  job: "azure-native:app:Job",
  managedEnvironment: "azure-native:app:ManagedEnvironment",
  postgresServer: "azure-native:dbforpostgresql:Server",
  postgresEntraAdministrator: "azure-native:dbforpostgresql:AdministratorsMicrosoftEntra",
  userAssignedIdentity: "azure-native:managedidentity:UserAssignedIdentity",
  virtualNetworkLink: "azure-native:privatedns:VirtualNetworkLink",
  subnet: "azure-native:network:Subnet",
  virtualNetwork: "azure-native:network:VirtualNetwork",
  natGateway: "azure-native:network:NatGateway",
  publicIpAddress: "azure-native:network:PublicIPAddress",
  postgresConfiguration: "azure-native:dbforpostgresql:Configuration",
  postgresDatabase: "azure-native:dbforpostgresql:Database",
  postgresFirewallRule: "azure-native:dbforpostgresql:FirewallRule",
  vault: "azure-native:keyvault:Vault",
  appInsights: "azure-native:applicationinsights:Component",
} as const;

/** Modules azure-native renamed: the older name still reaches the same Azure resource provider. */
const MODULE_ALIASES: Record<string, string> = {
  insights: "monitor",
};

/** Resources azure-native renamed (module:Type -> module:Type): a private endpoint was once an InterfaceEndpoint. */
const TYPE_ALIASES: Record<string, string> = {
  "network:InterfaceEndpoint": "network:PrivateEndpoint",
  "dbforpostgresql:Administrator": "dbforpostgresql:AdministratorsMicrosoftEntra",
  "network:VirtualNetworkLink": "privatedns:VirtualNetworkLink",
  // Application Insights lived in the insights module (read as monitor above) before applicationinsights.
  "monitor:Component": "applicationinsights:Component",
};

interface TypeToken {
  provider: string;
  module: string;
  name: string;
}

function parse(token: string): TypeToken | undefined {
  const match = /^([^:]+):([^:/]+)(?:\/[^:]+)?:([^:]+)$/.exec(token);
  if (!match) return undefined;
  const [, provider = "", rawModule = "", rawName = ""] = match;
  const module = MODULE_ALIASES[rawModule] ?? rawModule;
  const [canonicalModule = module, name = rawName] = (TYPE_ALIASES[`${module}:${rawName}`] ?? `${module}:${rawName}`).split(":");
  return { provider, module: canonicalModule, name };
}

/** True when `actual` names the same resource as `canonical`: any API version, any renamed module. */
export function isType(actual: string, canonical: string): boolean {
  if (actual === canonical) return true;
  const a = parse(actual);
  const c = parse(canonical);
  return a !== undefined && c !== undefined && a.provider === c.provider && a.module === c.module && a.name === c.name;
}
