-- description: one record table: billing_records moved into guard_records; claims batched over guard_records
--
-- Not all of this step is in this file: migration-one-table.ts first locks billing_records and moves its rows into
-- guard_records, then runs this file in the same transaction. The move stays TypeScript because each moved row's
-- fingerprint must be the one the guard computes for the same event (guarded-run.ts's `identify`: SHA-256 over the
-- kit's canonical JSON of the payload), and PostgreSQL has no canonical JSON of its own to compute it with.
--
-- Then the table is renamed (kept as billing_records_v4 for the audit trail) and the old claim functions refuse
-- with CG002 (the guard's retiredSchemaSqlState): an old replica's claim fails as a database error, which it treats
-- as an unknown outcome, a scheduled retry that a new replica takes.

ALTER TABLE billing_records RENAME TO billing_records_v4;

CREATE OR REPLACE FUNCTION chargeguard_claim(
  p_customer_id text, p_billing_period text, p_idempotency_key text, p_fingerprint text, p_amount_cents bigint,
  p_currency text, p_request jsonb, p_cap_cents bigint, p_now timestamptz, p_locked_until timestamptz,
  p_owner text, p_token text)
RETURNS TABLE (is_claimed boolean, row_json jsonb)
LANGUAGE plpgsql AS $fn$ BEGIN RAISE EXCEPTION 'chargeguard schema 5: billing_records moved to guard_records; this replica runs an older release and must not bill (chargeguard_claim)' USING ERRCODE = 'CG002'; END $fn$;

CREATE OR REPLACE FUNCTION chargeguard_claim_many(
  p_customer_ids text[], p_billing_periods text[], p_idempotency_keys text[], p_fingerprints text[],
  p_amounts_cents bigint[], p_currencies text[], p_requests jsonb[], p_caps_cents bigint[], p_nows timestamptz[],
  p_locked_untils timestamptz[], p_owners text[], p_tokens text[])
RETURNS TABLE (item integer, is_claimed boolean, row_json jsonb, over_cap boolean)
LANGUAGE plpgsql AS $fn$ BEGIN RAISE EXCEPTION 'chargeguard schema 5: billing_records moved to guard_records; this replica runs an older release and must not bill (chargeguard_claim_many)' USING ERRCODE = 'CG002'; END $fn$;

-- The claims that arrive while one is being written go together (batcher.ts): one round trip, one commit, one flush
-- for all. chargeguard_guard_claim runs a new record's insert and reservation in its own subtransaction, so one over
-- the cap undoes only itself.
CREATE OR REPLACE FUNCTION chargeguard_guard_claim_many(
  p_scopes text[], p_record_keys text[], p_flows text[], p_idempotency_keys text[], p_fingerprints text[],
  p_payloads jsonb[], p_spend_periods text[], p_spend_currencies text[], p_spend_amounts bigint[], p_caps_cents bigint[],
  p_nows timestamptz[], p_locked_untils timestamptz[], p_owners text[], p_tokens text[])
RETURNS TABLE (item integer, is_claimed boolean, row_json jsonb, over_cap boolean)
LANGUAGE plpgsql AS $fn$
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_scopes, 1), 0) LOOP
    RETURN QUERY
      SELECT i, c.is_claimed, c.row_json, c.over_cap
        FROM chargeguard_guard_claim(p_scopes[i], p_record_keys[i], p_flows[i], p_idempotency_keys[i], p_fingerprints[i],
                                     p_payloads[i], p_spend_periods[i], p_spend_currencies[i], p_spend_amounts[i],
                                     p_caps_cents[i], p_nows[i], p_locked_untils[i], p_owners[i], p_tokens[i]) c;
  END LOOP;
END
$fn$;
