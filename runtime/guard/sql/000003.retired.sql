-- description: chargeguard_claim_many: concurrent claims in one statement
-- retired: batches of claims over billing_records; schema 5 made this function refuse (CG002) and added
-- chargeguard_guard_claim_many over guard_records in its place.
--
-- The claims that arrive while one is being written go together (runtime/guard/batcher.ts): one round trip, one
-- commit, one flush for all. Each claim runs in its own subtransaction, so one over the cap undoes only itself.
-- Items come sorted by (period, customer), so batches written at once take ledger rows in one order.

CREATE OR REPLACE FUNCTION chargeguard_claim_many(
  p_customer_ids text[], p_billing_periods text[], p_idempotency_keys text[], p_fingerprints text[],
  p_amounts_cents bigint[], p_currencies text[], p_requests jsonb[], p_caps_cents bigint[], p_nows timestamptz[],
  p_locked_untils timestamptz[], p_owners text[], p_tokens text[])
RETURNS TABLE (item integer, is_claimed boolean, row_json jsonb, over_cap boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
  claimed boolean;
  found_row jsonb;
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_customer_ids, 1), 0) LOOP
    BEGIN
      SELECT c.is_claimed, c.row_json INTO claimed, found_row
        FROM chargeguard_claim(p_customer_ids[i], p_billing_periods[i], p_idempotency_keys[i], p_fingerprints[i],
                               p_amounts_cents[i], p_currencies[i], p_requests[i], p_caps_cents[i], p_nows[i],
                               p_locked_untils[i], p_owners[i], p_tokens[i]) c;
      item := i; is_claimed := claimed; row_json := found_row; over_cap := false;
      RETURN NEXT;
    EXCEPTION WHEN SQLSTATE 'CG001' THEN
      item := i; is_claimed := false; row_json := NULL; over_cap := true;
      RETURN NEXT;
    END;
  END LOOP;
END
$fn$;
