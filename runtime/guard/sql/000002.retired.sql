-- description: chargeguard_claim: a claim in one statement
-- retired: claims over billing_records; schema 4 replaced this function and schema 5 made it refuse (CG002), since
-- every flow claims through chargeguard_guard_claim over guard_records.
--
-- One round trip instead of a transaction of four: the guard's cost is mostly round trips. Locks are taken record
-- first, ledger second (as markCharged/markDeclined do), so claims and settlements never deadlock; a competing claim
-- for the same billing waits on the uncommitted row, then finds it. Over the cap, the exception (CG001: the guard's
-- overCapSqlState) undoes the insert with the statement.

CREATE OR REPLACE FUNCTION chargeguard_claim(
  p_customer_id text, p_billing_period text, p_idempotency_key text, p_fingerprint text, p_amount_cents bigint,
  p_currency text, p_request jsonb, p_cap_cents bigint, p_now timestamptz, p_locked_until timestamptz,
  p_owner text, p_token text)
RETURNS TABLE (is_claimed boolean, row_json jsonb)
LANGUAGE plpgsql AS $fn$
DECLARE
  rec billing_records%ROWTYPE;
BEGIN
  INSERT INTO billing_records (customer_id, billing_period, state, idempotency_key, fingerprint, amount_cents,
                               currency, attempts, locked_until, lock_owner, lease_token, request, created_at, updated_at)
  VALUES (p_customer_id, p_billing_period, 'pending', p_idempotency_key, p_fingerprint, p_amount_cents,
          p_currency, 1, p_locked_until, p_owner, p_token, p_request, p_now, p_now)
  ON CONFLICT (customer_id, billing_period) DO NOTHING
  RETURNING * INTO rec;
  IF FOUND THEN
    INSERT INTO spend_ledger AS l (billing_period, cap_cents, committed_cents, updated_at)
    SELECT p_billing_period, p_cap_cents, p_amount_cents, p_now
     WHERE p_cap_cents IS NULL OR p_amount_cents <= p_cap_cents
    ON CONFLICT (billing_period) DO UPDATE
       SET committed_cents = l.committed_cents + EXCLUDED.committed_cents, cap_cents = EXCLUDED.cap_cents,
           updated_at = EXCLUDED.updated_at
     WHERE EXCLUDED.cap_cents IS NULL OR l.committed_cents + EXCLUDED.committed_cents <= EXCLUDED.cap_cents;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'billing period % is over its spend cap', p_billing_period USING ERRCODE = 'CG001';
    END IF;
    RETURN QUERY SELECT true, to_jsonb(rec);
    RETURN;
  END IF;
  SELECT * INTO rec FROM billing_records
   WHERE customer_id = p_customer_id AND billing_period = p_billing_period FOR UPDATE;
  IF rec.fingerprint = p_fingerprint AND rec.state = 'pending'
     AND (rec.locked_until IS NULL OR rec.locked_until <= p_now) THEN
    UPDATE billing_records
       SET locked_until = p_locked_until, lock_owner = p_owner, lease_token = p_token, attempts = attempts + 1,
           updated_at = p_now
     WHERE customer_id = p_customer_id AND billing_period = p_billing_period
    RETURNING * INTO rec;
    RETURN QUERY SELECT true, to_jsonb(rec);
    RETURN;
  END IF;
  RETURN QUERY SELECT false, to_jsonb(rec);
END
$fn$;
