// What a day-two plan compares: the resources of the deployed stack (a baseline plan, or `pulumi stack export`) and
// those planned. Its own file, so the checks that read them (locks, create-only inputs, apps before their role)
// import it and not each other.
/** A resource as deployed (or as the baseline plan built it). */
export interface DeployedResource {
  type: string;
  /** The Pulumi name. */
  name: string;
  id?: string | undefined;
  inputs: Record<string, unknown>;
  protect: boolean;
  /** `retainOnDelete`: Pulumi forgets it instead of deleting it in Azure. */
  retain?: boolean;
  /** Known from a stack export; a planned baseline has none. */
  urn?: string | undefined;
}

/** `pulumi stack export` as deployed resources (providers and the stack itself left out). */
export function exportedResources(exported: unknown): DeployedResource[] {
  const resources = (exported as { deployment?: { resources?: Record<string, unknown>[] } }).deployment?.resources;
  if (!Array.isArray(resources)) throw new Error("not a `pulumi stack export`: no deployment.resources");
  return resources
    .filter((resource) => resource.custom === true && !String(resource.type).startsWith("pulumi:"))
    .map((resource) => ({
      type: String(resource.type),
      name: String(resource.urn).split("::").pop() as string,
      id: typeof resource.id === "string" ? resource.id : undefined,
      inputs: (resource.inputs ?? {}) as Record<string, unknown>,
      protect: resource.protect === true,
      retain: resource.retainOnDelete === true,
      urn: String(resource.urn),
    }));
}
