// Which production resources carry a CanNotDelete lock, and how a day-two change gets past one. A lock applies to the
// resource's children and its extension resources (role assignments, diagnostic settings scoped to it): deleting any
// of them fails ScopeLocked (Microsoft: Lock your resources; MicrosoftDocs azure-docs issue 110791). So only data is
// locked: the guard database's server (its records keep charges exactly once) and the Key Vault (the Stripe keys).
// The namespace, whose queues, rules, grants and diagnostics change from week to week, is guarded by Pulumi's
// `protect` instead. A change that deletes under a lock runs in a maintenance window (`chargeguard:maintenance: true`
// lifts the locks; the plan names the conflicts and the steps). Free of Pulumi imports.

/** Set on a data resource whose lock is lifted for a maintenance window: the policies see the window is open. */
export const MAINTENANCE_TAG = "chargeguard-maintenance";
export const MAINTENANCE_TAG_VALUE = "delete lock lifted for a day-two change";

/** Set on the guard database's server while Pulumi is to forget rather than delete it (database.retain, a restore). */
export const RETAINED_TAG = "chargeguard-retained";
export const RETAINED_TAG_VALUE = "forgotten, not deleted, by the stack: a point-in-time restore";

/** The lock every data resource carries in production (one name, so a stack export shows which are ours). */
export const LOCK_NAME = "chargeguard-do-not-delete";
