-- description: spend caps per (period, currency); guard_records for any flow behind the guard
--
-- The ledger was one row per period summing every currency's minor units (1,000 JPY and 1,000 US cents shared a
-- cap). It is rebuilt per (period, currency) from the records, which are its source of truth: committed =
-- reserved (pending) + charged. The records themselves are unchanged. (Its chargeguard_claim over billing_records
-- was retired by schema 5; the rest is live.)

ALTER TABLE spend_ledger RENAME TO spend_ledger_v1;

CREATE TABLE spend_ledger (
  billing_period  text        NOT NULL,
  currency        text        NOT NULL,
  cap_cents       bigint      CHECK (cap_cents IS NULL OR cap_cents >= 0),
  committed_cents bigint      NOT NULL DEFAULT 0 CHECK (committed_cents >= 0),
  updated_at      timestamptz NOT NULL,
  PRIMARY KEY (billing_period, currency)
);

INSERT INTO spend_ledger (billing_period, currency, cap_cents, committed_cents, updated_at)
 SELECT r.billing_period, r.currency, v1.cap_cents, SUM(r.amount_cents), max(r.updated_at)
   FROM billing_records r LEFT JOIN spend_ledger_v1 v1 ON v1.billing_period = r.billing_period
  WHERE r.state IN ('pending', 'charged', 'completed')
  GROUP BY r.billing_period, r.currency, v1.cap_cents;

DROP TABLE spend_ledger_v1;

-- One reservation rule for every kind of record: over the cap raises (CG001), so the caller's statement (or block)
-- rolls back whatever it inserted with it.
CREATE OR REPLACE FUNCTION chargeguard_reserve(
  p_billing_period text, p_currency text, p_amount_cents bigint, p_cap_cents bigint, p_now timestamptz)
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO spend_ledger AS l (billing_period, currency, cap_cents, committed_cents, updated_at)
  SELECT p_billing_period, p_currency, p_cap_cents, p_amount_cents, p_now
   WHERE p_cap_cents IS NULL OR p_amount_cents <= p_cap_cents
  ON CONFLICT (billing_period, currency) DO UPDATE
     SET committed_cents = l.committed_cents + EXCLUDED.committed_cents, cap_cents = EXCLUDED.cap_cents,
         updated_at = EXCLUDED.updated_at
   WHERE EXCLUDED.cap_cents IS NULL OR l.committed_cents + EXCLUDED.committed_cents <= EXCLUDED.cap_cents;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'billing period % (%) is over its spend cap', p_billing_period, p_currency USING ERRCODE = 'CG001';
  END IF;
END
$fn$;

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
    PERFORM chargeguard_reserve(p_billing_period, p_currency, p_amount_cents, p_cap_cents, p_now);
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

-- Any flow's record: identity = (scope, record_key), the canonical JSON of the fields the caller named.
-- `steps` holds the recovery points (step name -> the Stripe object id it produced); `object_id` the final one.
CREATE TABLE guard_records (
  scope            text        NOT NULL CHECK (length(scope) BETWEEN 1 AND 64),
  record_key       text        NOT NULL CHECK (length(record_key) BETWEEN 1 AND 2048),
  flow             text        NOT NULL CHECK (length(flow) BETWEEN 1 AND 64),
  state            text        NOT NULL CHECK (state IN ('pending', 'done', 'declined')),
  idempotency_key  text        NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 255),
  fingerprint      text        NOT NULL,
  payload          jsonb       NOT NULL,
  spend_period     text,
  spend_currency   text,
  spend_amount     bigint      CHECK (spend_amount IS NULL OR spend_amount > 0),
  steps            jsonb       NOT NULL DEFAULT '{}'::jsonb,
  object_id        text,
  result           jsonb,
  decline_reason   text,
  attempts         integer     NOT NULL DEFAULT 1,
  locked_until     timestamptz,
  lock_owner       text,
  lease_token      text,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  PRIMARY KEY (scope, record_key),
  CHECK (state = 'pending' OR lease_token IS NULL),
  CHECK ((spend_period IS NULL) = (spend_amount IS NULL) AND (spend_period IS NULL) = (spend_currency IS NULL))
);

CREATE INDEX guard_records_pending_lease ON guard_records (locked_until) WHERE state = 'pending';

CREATE OR REPLACE FUNCTION chargeguard_guard_claim(
  p_scope text, p_record_key text, p_flow text, p_idempotency_key text, p_fingerprint text, p_payload jsonb,
  p_spend_period text, p_spend_currency text, p_spend_amount bigint, p_cap_cents bigint, p_now timestamptz,
  p_locked_until timestamptz, p_owner text, p_token text)
RETURNS TABLE (is_claimed boolean, row_json jsonb, over_cap boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
  rec guard_records%ROWTYPE;
BEGIN
  BEGIN
    INSERT INTO guard_records (scope, record_key, flow, state, idempotency_key, fingerprint, payload, spend_period,
                               spend_currency, spend_amount, attempts, locked_until, lock_owner, lease_token,
                               created_at, updated_at)
    VALUES (p_scope, p_record_key, p_flow, 'pending', p_idempotency_key, p_fingerprint, p_payload, p_spend_period,
            p_spend_currency, p_spend_amount, 1, p_locked_until, p_owner, p_token, p_now, p_now)
    ON CONFLICT (scope, record_key) DO NOTHING
    RETURNING * INTO rec;
    IF FOUND THEN
      IF p_spend_amount IS NOT NULL THEN
        PERFORM chargeguard_reserve(p_spend_period, p_spend_currency, p_spend_amount, p_cap_cents, p_now);
      END IF;
      RETURN QUERY SELECT true, to_jsonb(rec), false;
      RETURN;
    END IF;
  EXCEPTION WHEN SQLSTATE 'CG001' THEN
    RETURN QUERY SELECT false, NULL::jsonb, true;
    RETURN;
  END;
  SELECT * INTO rec FROM guard_records WHERE scope = p_scope AND record_key = p_record_key FOR UPDATE;
  IF rec.fingerprint = p_fingerprint AND rec.state = 'pending'
     AND (rec.locked_until IS NULL OR rec.locked_until <= p_now) THEN
    UPDATE guard_records
       SET locked_until = p_locked_until, lock_owner = p_owner, lease_token = p_token, attempts = attempts + 1,
           updated_at = p_now
     WHERE scope = p_scope AND record_key = p_record_key
    RETURNING * INTO rec;
    RETURN QUERY SELECT true, to_jsonb(rec), false;
    RETURN;
  END IF;
  RETURN QUERY SELECT false, to_jsonb(rec), false;
END
$fn$;
