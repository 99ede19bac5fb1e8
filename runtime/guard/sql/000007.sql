-- description: lock order: a claim batch locks its spends' ledger rows before any record
--
-- Every statement that takes a spend ledger row and a record row takes the ledger row first. A claim batch used to
-- take, claim by claim, a new record's row then its period's ledger row then the next record's row, while a decline
-- or a forget took its record's row then the ledger's: a batch holding the ledger while it waited for a record that
-- another replica was declining, itself waiting for the ledger, was a deadlock, and PostgreSQL ended one of the two
-- ("deadlock detected": a decline lost, or every claim of the batch written again). Now a batch locks the ledger rows
-- of its spends first, in (period, currency) order, and a decline or forget locks its record's ledger row before the
-- record (reservation-sql.ts); no statement holds a record while it waits for a ledger row.

CREATE OR REPLACE FUNCTION chargeguard_guard_claim_many(
  p_scopes text[], p_record_keys text[], p_flows text[], p_idempotency_keys text[], p_fingerprints text[],
  p_payloads jsonb[], p_spend_periods text[], p_spend_currencies text[], p_spend_amounts bigint[], p_caps_cents bigint[],
  p_nows timestamptz[], p_locked_untils timestamptz[], p_owners text[], p_tokens text[])
RETURNS TABLE (item integer, is_claimed boolean, row_json jsonb, over_cap boolean)
LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM 1
     FROM spend_ledger l
     JOIN (SELECT DISTINCT period, currency FROM unnest(p_spend_periods, p_spend_currencies) AS s(period, currency)) s
       ON l.billing_period = s.period AND l.currency = s.currency
    ORDER BY l.billing_period, l.currency
      FOR UPDATE OF l;
  FOR i IN 1 .. coalesce(array_length(p_scopes, 1), 0) LOOP
    RETURN QUERY
      SELECT i, c.is_claimed, c.row_json, c.over_cap
        FROM chargeguard_guard_claim(p_scopes[i], p_record_keys[i], p_flows[i], p_idempotency_keys[i], p_fingerprints[i],
                                     p_payloads[i], p_spend_periods[i], p_spend_currencies[i], p_spend_amounts[i],
                                     p_caps_cents[i], p_nows[i], p_locked_untils[i], p_owners[i], p_tokens[i]) c;
  END LOOP;
END
$fn$;
