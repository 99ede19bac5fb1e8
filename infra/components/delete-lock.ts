// A CanNotDelete management lock on one resource: it stops a stray portal or CLI delete, which Pulumi's `protect`
// (a guard against Pulumi itself) does not ([Lock your resources](https://learn.microsoft.com/azure/azure-resource-manager/management/lock-resources)).
// Production puts one on the data only: the guard database's server and the vault (infra/specs/locks.ts says why).
import type * as pulumi from "@pulumi/pulumi";
import { ManagementLockByScope } from "@pulumi/azure-native/authorization/index.js";
import { LOCK_NAME } from "../specs/index.js";

export function deleteLock(name: string, scope: pulumi.Input<string>, why: string, opts: pulumi.CustomResourceOptions): ManagementLockByScope {
  return new ManagementLockByScope(name, { scope, lockName: LOCK_NAME, level: "CanNotDelete", notes: `chargeguard: ${why} Lift it with chargeguard:maintenance true (infra/README.md, Day two).` }, opts);
}
