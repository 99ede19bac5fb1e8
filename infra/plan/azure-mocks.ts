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

const AZURE_NAME_INPUT: Record<string, string> = {
  "azure-native:servicebus:Namespace": "namespaceName",
  "azure-native:servicebus:Queue": "queueName",
  "azure-native:servicebus:QueueAuthorizationRule": "authorizationRuleName",
  "azure-native:servicebus:NamespaceAuthorizationRule": "authorizationRuleName",
  "azure-native:monitor:ActionGroup": "actionGroupName",
  "azure-native:monitor:MetricAlert": "ruleName",
  "azure-native:monitor:DiagnosticSetting": "name",
  "azure-native:authorization:RoleAssignment": "roleAssignmentName",
};

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
    default:
      return `${group}/mock/${azureName}`;
  }
}

/** Mocks that record every registered resource into `record`. */
export function azureMocks(record: (resource: MockedResource) => void): pulumi.runtime.Mocks {
  return {
    newResource(args) {
      const inputs = (args.inputs ?? {}) as Record<string, unknown>;
      const nameInput = AZURE_NAME_INPUT[args.type];
      const azureName = str(nameInput ? inputs[nameInput] : undefined, args.name);
      const custom = args.custom !== false;
      const id = custom ? armId(args.type, azureName, inputs) : `${args.name}_id`;
      const state = { ...inputs, name: azureName, id };
      record({ type: args.type, name: args.name, custom, inputs, id, state });
      return { id, state };
    },
    call(args) {
      throw new Error(`the offline plan has no mock for the call ${args.token}`);
    },
  };
}
