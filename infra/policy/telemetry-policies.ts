// Application Insights takes the consumers' telemetry with Entra tokens only: with local auth on, anyone holding the
// connection string (it is no secret to Azure: it sits in every app's settings) could post forged billing metrics and
// raise false alerts or hide real ones. So every component disables local auth, and every app or job that exports
// (APPLICATIONINSIGHTS_CONNECTION_STRING) signs in as its own identity (AZURE_CLIENT_ID), which must hold Monitoring
// Metrics Publisher on a component of the stack, or its telemetry is refused and the billing-health alerts go silent.
// Plain policy objects; only type imports from @pulumi/policy.
import type { PolicyResource, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { builtInRoles } from "../specs/index.js";
import { forType, list, obj, ofType } from "./policy-helpers.js";
import { types } from "./resource-types.js";

const lower = (value: unknown) => (typeof value === "string" ? value.toLowerCase() : undefined);
const CONNECTION_STRING = "APPLICATIONINSIGHTS_CONNECTION_STRING";

export const appInsightsLocalAuthDisabled: ResourceValidationPolicy = {
  name: "appinsights-local-auth-disabled",
  description: "Every Application Insights component sets disableLocalAuth: true: ingestion takes Entra tokens only, so a leaked connection string cannot forge billing metrics.",
  enforcementLevel: "mandatory",
  validateResource: forType(types.appInsights, (props, args, report) => {
    if (props.disableLocalAuth !== true) {
      report(`Application Insights ${String(props.resourceName ?? args.name)}: set disableLocalAuth: true (telemetry signs in with Entra ID; a connection string alone must not be able to send)`);
    }
  }),
};

/** The env of a Container App's or Job's first container, name -> value. */
function envOf(resource: PolicyResource): Map<string, unknown> {
  const container = obj(list(obj(resource.props.template).containers)[0]);
  return new Map(list(container.env).map(obj).map((entry) => [String(entry.name), entry.value ?? entry.secretRef]));
}

export const telemetryPublisherRole: StackValidationPolicy = {
  name: "consumer-telemetry-publisher",
  description:
    "Every Container App or Job that exports telemetry (APPLICATIONINSIGHTS_CONNECTION_STRING) names its identity (AZURE_CLIENT_ID), and that identity holds Monitoring Metrics Publisher on an Application Insights component of the stack.",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    const components = new Set(ofType(args, types.appInsights).map((component) => lower(component.props.id)));
    const identities = ofType(args, types.userAssignedIdentity);
    const publishers = ofType(args, types.roleAssignment).filter(
      (grant) => lower(String(grant.props.roleDefinitionId ?? "").split("/").pop()) === builtInRoles.monitoringMetricsPublisher && components.has(lower(grant.props.scope)),
    );
    for (const resource of [...ofType(args, types.containerApp), ...ofType(args, types.job)]) {
      const env = envOf(resource);
      if (!env.has(CONNECTION_STRING)) continue;
      const label = String(resource.props.containerAppName ?? resource.props.jobName ?? resource.name);
      const clientId = env.get("AZURE_CLIENT_ID");
      if (clientId === undefined) {
        report(`${label}: exports telemetry without AZURE_CLIENT_ID: the exporter cannot sign in with Entra ID and Application Insights (local auth off) refuses it`, resource.urn);
        continue;
      }
      const principal = identities.find((identity) => identity.props.clientId === clientId)?.props.principalId;
      if (!publishers.some((grant) => principal !== undefined && grant.props.principalId === principal)) {
        report(`${label}: its identity (AZURE_CLIENT_ID) holds no Monitoring Metrics Publisher on the stack's Application Insights: its telemetry is refused and the billing-health alerts go silent`, resource.urn);
      }
    }
  },
};

export const telemetryPolicies: (ResourceValidationPolicy | StackValidationPolicy)[] = [appInsightsLocalAuthDisabled, telemetryPublisherRole];
