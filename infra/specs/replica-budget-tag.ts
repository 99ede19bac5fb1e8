// The tag a consumer app carries with the budget its replica bounds were computed from (JSON, well under Azure's
// 256-character tag limit), so the policy pack re-derives the bounds from what is deployed. Pure: no Pulumi import.
export const REPLICA_BUDGET_TAG_NAME = "chargeguard-replica-budget";
