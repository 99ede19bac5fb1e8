// A CanNotDelete management lock on one resource: it stops a stray portal or CLI delete, which Pulumi's `protect`
// (a guard against Pulumi itself) does not ([Lock your resources](https://learn.microsoft.com/azure/azure-resource-manager/management/lock-resources)).
// Production puts one on the namespace, the guard database's server and the vault.
import type * as pulumi from "@pulumi/pulumi";
import { ManagementLockByScope } from "@pulumi/azure-native/authorization/index.js";

export function deleteLock(name: string, scope: pulumi.Input<string>, why: string, opts: pulumi.CustomResourceOptions): ManagementLockByScope {
  return new ManagementLockByScope(name, { scope, lockName: "chargeguard-do-not-delete", level: "CanNotDelete", notes: `chargeguard: ${why} Remove this lock on purpose.` }, opts);
}
