// @azure/identity (0.8 s to import alone, @azure/msal-* with it): loaded only when a DefaultAzureCredential is made,
// i.e. for a Service Bus namespace without a connection string or an Entra database password without a credential.
import { loadOnce, missingDependency } from "./load-once.js";

export type IdentityModule = typeof import("@azure/identity");

/** The `@azure/identity` module, imported on first use; a ConfigurationError naming the package when absent. */
export const loadIdentity: () => Promise<IdentityModule> = loadOnce(
  () => import("@azure/identity"),
  missingDependency("@azure/identity", "signing in with DefaultAzureCredential"),
);
