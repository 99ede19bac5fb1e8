// Claims written together: every claim queued while the previous batch was written goes in one call of
// `chargeguard_claim_many` (migrations.ts), one subtransaction per claim, in (period, customer) order.
import { sortedByKey } from "./billing-key.js";
import type { BillingRow } from "./records.js";
import type { SqlExecutor } from "./sql-client.js";
import type { ClaimInput } from "./types.js";

/** A claim checked and stamped, waiting for its batch. */
export interface QueuedClaim {
  input: ClaimInput;
  owner: string;
  fingerprint: string;
  cap: number | undefined;
  now: Date;
  lockedUntil: Date;
  token: string;
}

/** What the database answered for one claim: taken by it, or the record as it stands; over the cap, no row. */
export type ClaimAnswer = {
  is_claimed: boolean;
  row_json: BillingRow | string | null;
  over_cap: boolean;
};

/** One statement for a batch of claims; each claim's answer at its own position (an Error where none came back). */
export async function writeClaims(sql: SqlExecutor, claims: QueuedClaim[]): Promise<(ClaimAnswer | Error)[]> {
  const sorted = sortedByKey(claims, (claim) => claim.input);
  const column = <T>(pick: (claim: QueuedClaim) => T): T[] => sorted.map(({ item }) => pick(item));
  const rows = await sql.query<ClaimAnswer & { item: number }>(
    `SELECT item, is_claimed, row_json, over_cap
       FROM chargeguard_claim_many($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::jsonb[],
                                   $8::bigint[], $9::timestamptz[], $10::timestamptz[], $11::text[], $12::text[])`,
    [
      column((c) => c.input.customerId),
      column((c) => c.input.billingPeriod),
      column((c) => c.input.idempotencyKey),
      column((c) => c.fingerprint),
      column((c) => c.input.amountCents),
      column((c) => c.input.currency),
      column((c) => JSON.stringify(c.input.request)),
      column((c) => c.cap ?? null),
      column((c) => c.now),
      column((c) => c.lockedUntil),
      column((c) => c.owner),
      column((c) => c.token),
    ],
  );
  const answers: (ClaimAnswer | undefined)[] = new Array<ClaimAnswer | undefined>(claims.length);
  for (const row of rows) {
    const entry = sorted[Number(row.item) - 1];
    if (entry) answers[entry.at] = row;
  }
  // An Error only where one is missing: building one per claim (its stack trace) cost more than the claim's JavaScript.
  return Array.from(answers, (answer) => answer ?? new Error("chargeguard_claim_many returned no row for this claim"));
}
