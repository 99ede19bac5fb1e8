// The stack's platform alerts: each consumer app, the guard database and a Premium namespace, on the namespace's
// action group. Built only when there is one of them to watch.
import type { BillingNamespace } from "../components/billing-namespace.js";
import type { ConsumerApp } from "../components/consumer-app.js";
import type { GuardDatabase } from "../components/guard-database.js";
import { ServiceAlerts } from "../components/service-alerts.js";
import { containerAppAlertSpecs, postgresAlertSpecs, premiumNamespaceAlertSpecs } from "../specs/index.js";
import type { StackContext } from "./stack-context.js";

export function buildServiceAlerts(
  { config, resourceGroupName: rg, tags }: StackContext,
  namespace: BillingNamespace,
  apps: ConsumerApp[],
  database: GuardDatabase | undefined,
): void {
  const ns = config.namespace;
  const consumers = config.app?.consumers ?? [];
  if (apps.length === 0 && !database && ns.sku !== "Premium") return;
  new ServiceAlerts("service-alerts", {
    resourceGroupName: rg,
    ...(namespace.actionGroupId ? { actionGroupId: namespace.actionGroupId } : {}),
    targets: [
      ...apps.map((app, index) => {
        const appName = consumers[index]?.appName ?? `consumer-${index}`;
        return { key: appName, resourceId: app.app.id, specs: containerAppAlertSpecs(appName, app.bounds) };
      }),
      ...(database ? [{ key: database.serverName, resourceId: database.server.id, specs: postgresAlertSpecs(database.serverName) }] : []),
      ...(ns.sku === "Premium" ? [{ key: ns.name, resourceId: namespace.namespaceId, specs: premiumNamespaceAlertSpecs(ns.name) }] : []),
    ],
    tags,
  });
}
