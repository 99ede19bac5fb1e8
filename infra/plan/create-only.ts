// Changes Azure cannot make in place. Each is a property its REST spec marks create-only (`x-ms-mutability:
// ["create", "read"]`) or a change the service refuses on a live resource; azure-native 3.28's SDK marks none of the
// stack's as `replaceOnChanges` (test/infra/create-only.test.ts reads the SDK and fails when it starts to, so the
// marking then comes from the provider). `pulumi up` would end in a refused update, or in replacing protected data,
// so `plan --baseline` names each, says what Azure would do, and refuses without --accept-replacement.
import { isType, types } from "../policy/resource-types.js";
import type { DeployedResource } from "./deployed-resources.js";

export interface InPlaceRefusal {
  /** The Pulumi name, or "the stack" for a change every resource shares. */
  resource: string;
  type: string;
  change: string;
  /** What Azure (or the provider) would do with it. */
  azure: string;
  /** What to do instead (infra/README.md, Day two). */
  procedure: string;
}

type Inputs = Record<string, unknown>;
const at = (inputs: Inputs, path: string[]): unknown => path.reduce<unknown>((value, key) => (value as Inputs | undefined)?.[key], inputs);
const shown = (value: unknown) => (value === undefined ? "unset" : JSON.stringify(value));

interface CreateOnlyRule {
  type: string;
  path: string[];
  /** Only these transitions are refused (Basic -> Standard is an in-place SKU change; Standard -> Premium is not). */
  refused?: (before: unknown, after: unknown) => boolean;
  azure: string;
  procedure: (stack: string) => string;
}

const RULES: CreateOnlyRule[] = [
  {
    type: types.vault,
    path: ["properties", "softDeleteRetentionInDays"],
    azure: "Key Vault refuses the update: soft-delete retention is fixed once the vault is created",
    procedure: () =>
      "keep the retention as deployed; a different one needs a new vault under a new name (the old name stays taken while it is soft-deleted): create it, put the secret values in, move the apps' references, then retire the old vault",
  },
  {
    type: types.postgresServer,
    path: ["backup", "geoRedundantBackup"],
    azure: "PostgreSQL Flexible sets geo-redundant backup only when a server is created; the update is refused",
    procedure: () =>
      "restore the server into a new one created with the setting (Day two: restore the guard database), adopt it, and keep the original with its backups until the operator retires it",
  },
  {
    type: types.namespace,
    path: ["sku", "name"],
    refused: (before, after) => before !== "Premium" && after === "Premium",
    azure: "Azure does not change a namespace to Premium in place: it is a migration to a new Premium namespace (az servicebus migration), and role assignments, SAS rules and private endpoints do not follow",
    procedure: () =>
      "deploy a Premium namespace under a new name beside this one (its queues, grants and alerts come with it), move producers, then consumers once the old queues drain, then remove the old namespace",
  },
  {
    type: types.virtualNetwork,
    path: ["addressSpace", "addressPrefixes"],
    azure: "the Container Apps environment's infrastructure subnet cannot change once the environment exists, so re-carving the address space is refused (or replaces the environment and every app in it)",
    procedure: () =>
      "keep the address space; a new one needs a new network and environment beside these (new names), the apps moved to it, then the old ones removed",
  },
];

/** The stack's location: every resource is replaced, and a soft-deleted vault's name stays taken in the old region. */
function locationChange(deployed: DeployedResource[], planned: DeployedResource[]): InPlaceRefusal[] {
  const moved = deployed.filter((before) => {
    const after = planned.find((candidate) => candidate.name === before.name && candidate.type === before.type);
    const from = before.inputs.location;
    return after !== undefined && typeof from === "string" && from !== "global" && after.inputs.location !== from;
  });
  if (moved.length === 0) return [];
  const first = moved[0]!;
  const to = planned.find((candidate) => candidate.name === first.name)?.inputs.location;
  return [
    {
      resource: "the stack",
      type: "location",
      change: `location ${shown(first.inputs.location)} -> ${shown(to)} on ${moved.length} resource(s)`,
      azure: "location is create-only on every resource: each would be deleted and made again (the database with its backups, the vault whose name stays taken while soft-deleted)",
      procedure: "deploy a new stack in the new region (its own names), move producers and consumers to it, then retire the old stack",
    },
  ];
}

/** Every change from the deployed resources to the planned ones that Azure cannot make in place. */
export function cannotChangeInPlace(stack: string, deployed: DeployedResource[], planned: DeployedResource[]): InPlaceRefusal[] {
  const refusals: InPlaceRefusal[] = [];
  for (const before of deployed) {
    const after = planned.find((candidate) => candidate.name === before.name && candidate.type === before.type);
    if (!after) continue;
    for (const rule of RULES.filter((candidate) => isType(before.type, candidate.type))) {
      const from = at(before.inputs, rule.path);
      const to = at(after.inputs, rule.path);
      if (JSON.stringify(from) === JSON.stringify(to) || (rule.refused && !rule.refused(from, to))) continue;
      refusals.push({
        resource: before.name,
        type: before.type.split(":").pop() as string,
        change: `${rule.path.join(".")} ${shown(from)} -> ${shown(to)}`,
        azure: rule.azure,
        procedure: rule.procedure(stack),
      });
    }
  }
  return [...refusals, ...locationChange(deployed, planned)];
}

/** The properties named here, for the test that compares them with what the SDK marks. */
export const createOnlyProperties = RULES.map((rule) => ({ type: rule.type, path: rule.path.join(".") }));
