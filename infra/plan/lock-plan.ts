// Day two against the locks: which deletes a planned change makes (removed resources, and replacements: an input
// Azure cannot update in place), which of them a CanNotDelete lock of the deployed stack refuses (the lock covers
// the resource's children and extension resources: ScopeLocked), which Pulumi's `protect` refuses, and the procedure
// that gets the change through. The deployed stack is a baseline: the previous Pulumi.<stack>.yaml (planned under
// the same mocks) or `pulumi stack export` (the real state).
import { LOCK_NAME } from "../specs/index.js";
import { isType, types } from "../policy/resource-types.js";
import { AZURE_NAME_INPUT } from "./azure-mocks.js";
import { cannotChangeInPlace, type InPlaceRefusal } from "./create-only.js";
import { appsBeforeTheirRole, type AppBeforeItsRole } from "./role-first-plan.js";
import type { DeployedResource } from "./deployed-resources.js";

export interface PlannedDelete {
  resource: string;
  type: string;
  why: string;
  /** The locks (their scope's last segment) that refuse it. */
  lockedBy: string[];
  protect: boolean;
  /** Forgotten, not deleted (retainOnDelete in the deployed state): Azure keeps it, no lock or protect is involved. */
  retained: boolean;
}

export interface DayTwoPlan {
  baseline: string;
  deletes: PlannedDelete[];
  /** Deletes a lock refuses. */
  lockConflicts: number;
  /** Queues replaced in place (an immutable setting changed): their messages would be lost; refused like a lock conflict. */
  queueReplacements: number;
  /** What to do, step by step; empty when nothing is refused. */
  procedure: string[];
  /** Changes Azure cannot make in place (create-only properties): refused unless accepted by name of the flag. */
  cannotChangeInPlace: InPlaceRefusal[];
  /** The operator passed --accept-replacement: the changes above are theirs to make. */
  replacementAccepted: boolean;
  /** Apps created in the run that creates their identity, before the DBA can give it a role: refused (exit 1). */
  appsBeforeTheirRole: AppBeforeItsRole[];
  /** PostgreSQL servers this change would delete with their backups: refused (exit 1), never through a window. */
  serverDeletes: number;
}

/** Inputs besides the Azure name that Azure cannot change in place: a change replaces (deletes) the resource. */
const REPLACED_ON: [string, string[]][] = [
  [types.roleAssignment, ["principalId", "roleDefinitionId", "scope"]],
  [types.queue, ["requiresDuplicateDetection", "requiresSession", "enablePartitioning"]],
  [types.diagnosticSetting, ["resourceUri"]],
  [types.lock, ["scope"]],
];

const lower = (value: unknown) => String(value ?? "").toLowerCase();

function replacedBy(before: DeployedResource, after: DeployedResource): string | undefined {
  const nameKey = Object.entries(AZURE_NAME_INPUT).find(([type]) => isType(before.type, type))?.[1];
  const keys = [...(nameKey ? [nameKey] : []), "resourceGroupName", ...(REPLACED_ON.find(([type]) => isType(before.type, type))?.[1] ?? [])];
  const changed = keys.filter((key) => JSON.stringify(before.inputs[key]) !== JSON.stringify(after.inputs[key]));
  return changed.length > 0 ? `replaced: ${changed.join(", ")} cannot change in place` : undefined;
}

/** The scopes a lock covers: the resource itself, its children, and extension resources on it. */
function coveredBy(resource: DeployedResource, lockScope: string): boolean {
  const scope = lower(lockScope);
  const under = (value: unknown) => lower(value) === scope || lower(value).startsWith(`${scope}/`);
  return under(resource.id) || under(resource.inputs.scope) || under(resource.inputs.resourceUri);
}

/** The guard database's server (the stack's only Server), deleted in Azure rather than forgotten. */
const deletesAServer = (d: PlannedDelete) => d.type === "Server" && !d.retained;

/** A server deleted with its backups: the only way through is to keep it (retain), never a maintenance window. */
function serverSteps(stack: string, servers: PlannedDelete[]): string[] {
  return servers.map(
    (server) =>
      `Server ${server.resource} would be deleted with its backups (${server.why}): never lift its lock for it. To move the stack to another server (a point-in-time restore), first pulumi config set --path chargeguard:database.retain true --stack ${stack} with the deployed serverName and pulumi up --stack ${stack} (Pulumi will forget the server and what is under it instead of deleting them), then make the change (infra/README.md, Day two: restore the guard database).`,
  );
}

function procedure(stack: string, deletes: PlannedDelete[], early: AppBeforeItsRole[]): string[] {
  const servers = deletes.filter(deletesAServer);
  // A window would let Pulumi delete the server it refuses: with a server at stake, keeping it is the procedure.
  if (servers.length > 0) return serverSteps(stack, servers);
  const locked = deletes.filter((d) => d.lockedBy.length > 0);
  const protectedDeletes = deletes.filter((d) => d.protect);
  const steps: string[] = [];
  for (const { app, identity } of early) {
    steps.push(
      `App ${app} would start before ${identity} has a database role: set bootstrap: true on its consumer and pulumi up --stack ${stack} (its identity and grants, no app); the DBA runs the role statements chargeguard plan --stack ${stack} --details prints for ${identity}; then remove bootstrap and pulumi up --stack ${stack} (the app).`,
    );
  }
  for (const queue of deletes.filter((d) => d.type === "Queue" && d.why.startsWith("replaced"))) {
    steps.push(
      `Queue ${queue.resource} would be replaced (${queue.why}) and its messages lost: keep it as it is; create a queue under a new name with the new settings, move the producers, drain the old one, then remove it.`,
    );
  }
  if (protectedDeletes.length > 0) {
    steps.push(
      `Pulumi's protect refuses deleting ${protectedDeletes.map((d) => d.resource).join(", ")}: after reading what it holds (a queue's messages are lost with it), pulumi state unprotect each (pulumi stack --stack ${stack} --show-urns lists their URNs).`,
    );
  }
  if (locked.length > 0) {
    const scopes = [...new Set(locked.flatMap((d) => d.lockedBy))];
    steps.push(
      `Open a maintenance window, keeping your change in the file: pulumi config set chargeguard:maintenance true --stack ${stack}.`,
      `Lift only the locks on ${scopes.join(", ")}: pulumi up --stack ${stack} --target <URN of each ${LOCK_NAME} lock> (pulumi stack --stack ${stack} --show-urns | grep delete-lock); nothing else changes, and a lock may delete itself.`,
      `Apply the change: pulumi up --stack ${stack} (nothing is locked now; Pulumi's protect still guards the server and the vault).`,
      `Close the window: pulumi config set chargeguard:maintenance false --stack ${stack} and pulumi up --stack ${stack}: the locks come back.`,
    );
  }
  return steps;
}

/** The deletes going from the deployed baseline to the planned resources, and what refuses them. */
export function dayTwoPlan(stack: string, baselineName: string, deployed: DeployedResource[], planned: DeployedResource[], replacementAccepted = false): DayTwoPlan {
  const locks = deployed.filter((resource) => isType(resource.type, types.lock) && resource.inputs.level === "CanNotDelete");
  const deletes = deployed.flatMap((before): PlannedDelete[] => {
    const after = planned.find((candidate) => candidate.name === before.name && isType(candidate.type, before.type));
    const why = after ? replacedBy(before, after) : "removed from the stack";
    if (why === undefined) return [];
    const type = before.type.split(":").pop() as string;
    // Forgotten by Pulumi, not deleted in Azure: no lock or protect is asked.
    if (before.retain === true) return [{ resource: before.name, type, why: `${why}; retained: Pulumi forgets it, Azure keeps it`, lockedBy: [], protect: false, retained: true }];
    const lockedBy = isType(before.type, types.lock)
      ? []
      : locks.filter((lock) => coveredBy(before, String(lock.inputs.scope))).map((lock) => String(lock.inputs.scope).split("/").pop() as string);
    return [{ resource: before.name, type, why, lockedBy, protect: before.protect, retained: false }];
  });
  const queueReplacements = deletes.filter((d) => d.type === "Queue" && d.why.startsWith("replaced")).length;
  const early = appsBeforeTheirRole(deployed, planned);
  return {
    baseline: baselineName,
    deletes,
    lockConflicts: deletes.filter((d) => d.lockedBy.length > 0).length,
    queueReplacements,
    procedure: procedure(stack, deletes, early),
    cannotChangeInPlace: cannotChangeInPlace(stack, deployed, planned),
    replacementAccepted,
    appsBeforeTheirRole: early,
    serverDeletes: deletes.filter(deletesAServer).length,
  };
}

/** The plan's text: each delete and what refuses it, then the procedure. */
export function dayTwoLines(dayTwo: DayTwoPlan | undefined): string[] {
  if (!dayTwo) return [];
  const refused = (d: PlannedDelete) =>
    [d.lockedBy.length > 0 ? `REFUSED by the delete lock on ${d.lockedBy.join(", ")} (ScopeLocked)` : "", d.protect ? "refused by Pulumi's protect" : ""].filter(Boolean).join("; ");
  return [
    `Day two against ${dayTwo.baseline}: ${dayTwo.deletes.length} delete(s), ${dayTwo.lockConflicts} refused by a delete lock${dayTwo.queueReplacements > 0 ? `, ${dayTwo.queueReplacements} queue(s) replaced (messages lost)` : ""}${dayTwo.appsBeforeTheirRole.length > 0 ? `, ${dayTwo.appsBeforeTheirRole.length} app(s) REFUSED before their database role` : ""}${dayTwo.serverDeletes > 0 ? `, ${dayTwo.serverDeletes} database server(s) REFUSED (deleted with their backups)` : ""}.`,
    ...dayTwo.deletes.map((d) => `  ${d.type} ${d.resource}: ${d.why}${refused(d) ? `: ${refused(d)}` : ""}.`),
    ...(dayTwo.procedure.length > 0 ? ["  Procedure (infra/README.md, Day two):", ...dayTwo.procedure.map((step, index) => `    ${index + 1}. ${step}`)] : []),
    ...inPlaceLines(dayTwo),
    "",
  ];
}

function inPlaceLines(dayTwo: DayTwoPlan): string[] {
  const refusals = dayTwo.cannotChangeInPlace;
  if (refusals.length === 0) return [];
  const verdict = dayTwo.replacementAccepted ? "accepted with --accept-replacement" : "REFUSED without --accept-replacement (exit 3)";
  return [
    `  ${refusals.length} change(s) Azure cannot make in place, ${verdict}:`,
    ...refusals.flatMap((r) => [`    ${r.type} ${r.resource}: ${r.change}.`, `      Azure: ${r.azure}.`, `      Instead: ${r.procedure}.`]),
  ];
}
