-- The guard's schema after every migration in this folder, as PostgreSQL's catalogs print it. Generated, not
-- applied: test/runtime/guard/migration-files.test.ts migrates PGlite and PostgreSQL and fails when either
-- differs from this file (`npx vitest run test/runtime/guard/migration-files.test.ts -u` rewrites it).

CREATE TABLE billing_records_v4 (
  customer_id text NOT NULL,
  billing_period text NOT NULL,
  state text NOT NULL,
  idempotency_key text NOT NULL,
  fingerprint text NOT NULL,
  amount_cents bigint NOT NULL,
  currency text NOT NULL,
  payment_intent_id text,
  attempts integer NOT NULL DEFAULT 1,
  locked_until timestamp with time zone,
  lock_owner text,
  lease_token text,
  request jsonb NOT NULL,
  decline_reason text,
  created_at timestamp with time zone NOT NULL,
  updated_at timestamp with time zone NOT NULL
);
CREATE TABLE chargeguard_schema_version (
  version integer NOT NULL,
  description text NOT NULL,
  applied_at timestamp with time zone NOT NULL
);
CREATE TABLE guard_records (
  scope text NOT NULL,
  record_key text NOT NULL,
  flow text NOT NULL,
  state text NOT NULL,
  idempotency_key text NOT NULL,
  fingerprint text NOT NULL,
  payload jsonb NOT NULL,
  spend_period text,
  spend_currency text,
  spend_amount bigint,
  steps jsonb NOT NULL DEFAULT '{}'::jsonb,
  object_id text,
  result jsonb,
  decline_reason text,
  attempts integer NOT NULL DEFAULT 1,
  locked_until timestamp with time zone,
  lock_owner text,
  lease_token text,
  created_at timestamp with time zone NOT NULL,
  updated_at timestamp with time zone NOT NULL
);
CREATE TABLE spend_ledger (
  billing_period text NOT NULL,
  currency text NOT NULL,
  cap_cents bigint,
  committed_cents bigint NOT NULL DEFAULT 0,
  updated_at timestamp with time zone NOT NULL
);

ALTER TABLE billing_records_v4 ADD CONSTRAINT billing_records_amount_cents_check CHECK ((amount_cents > 0));
ALTER TABLE billing_records_v4 ADD CONSTRAINT billing_records_billing_period_check CHECK (((length(billing_period) >= 1) AND (length(billing_period) <= 64)));
ALTER TABLE billing_records_v4 ADD CONSTRAINT billing_records_check CHECK (((state = 'pending'::text) OR (lease_token IS NULL)));
ALTER TABLE billing_records_v4 ADD CONSTRAINT billing_records_check1 CHECK (((state <> ALL (ARRAY['charged'::text, 'completed'::text])) OR (payment_intent_id IS NOT NULL)));
ALTER TABLE billing_records_v4 ADD CONSTRAINT billing_records_customer_id_check CHECK (((length(customer_id) >= 1) AND (length(customer_id) <= 255)));
ALTER TABLE billing_records_v4 ADD CONSTRAINT billing_records_idempotency_key_check CHECK (((length(idempotency_key) >= 1) AND (length(idempotency_key) <= 255)));
ALTER TABLE billing_records_v4 ADD CONSTRAINT billing_records_pkey PRIMARY KEY (customer_id, billing_period);
ALTER TABLE billing_records_v4 ADD CONSTRAINT billing_records_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'charged'::text, 'completed'::text, 'declined'::text])));
ALTER TABLE chargeguard_schema_version ADD CONSTRAINT chargeguard_schema_version_pkey PRIMARY KEY (version);
ALTER TABLE guard_records ADD CONSTRAINT guard_records_check CHECK (((state = 'pending'::text) OR (lease_token IS NULL)));
ALTER TABLE guard_records ADD CONSTRAINT guard_records_check1 CHECK ((((spend_period IS NULL) = (spend_amount IS NULL)) AND ((spend_period IS NULL) = (spend_currency IS NULL))));
ALTER TABLE guard_records ADD CONSTRAINT guard_records_flow_check CHECK (((length(flow) >= 1) AND (length(flow) <= 64)));
ALTER TABLE guard_records ADD CONSTRAINT guard_records_idempotency_key_check CHECK (((length(idempotency_key) >= 1) AND (length(idempotency_key) <= 255)));
ALTER TABLE guard_records ADD CONSTRAINT guard_records_pkey PRIMARY KEY (scope, record_key);
ALTER TABLE guard_records ADD CONSTRAINT guard_records_record_key_check CHECK (((length(record_key) >= 1) AND (length(record_key) <= 2048)));
ALTER TABLE guard_records ADD CONSTRAINT guard_records_scope_check CHECK (((length(scope) >= 1) AND (length(scope) <= 64)));
ALTER TABLE guard_records ADD CONSTRAINT guard_records_spend_amount_check CHECK (((spend_amount IS NULL) OR (spend_amount > 0)));
ALTER TABLE guard_records ADD CONSTRAINT guard_records_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'done'::text, 'declined'::text])));
ALTER TABLE spend_ledger ADD CONSTRAINT spend_ledger_cap_cents_check1 CHECK (((cap_cents IS NULL) OR (cap_cents >= 0)));
ALTER TABLE spend_ledger ADD CONSTRAINT spend_ledger_committed_cents_check1 CHECK ((committed_cents >= 0));
ALTER TABLE spend_ledger ADD CONSTRAINT spend_ledger_pkey1 PRIMARY KEY (billing_period, currency);

CREATE INDEX billing_records_pending_lease ON public.billing_records_v4 USING btree (locked_until) WHERE (state = 'pending'::text);
CREATE UNIQUE INDEX billing_records_pkey ON public.billing_records_v4 USING btree (customer_id, billing_period);
CREATE UNIQUE INDEX chargeguard_schema_version_pkey ON public.chargeguard_schema_version USING btree (version);
CREATE INDEX guard_records_pending_lease ON public.guard_records USING btree (locked_until) WHERE (state = 'pending'::text);
CREATE UNIQUE INDEX guard_records_pkey ON public.guard_records USING btree (scope, record_key);
CREATE UNIQUE INDEX spend_ledger_pkey1 ON public.spend_ledger USING btree (billing_period, currency);

CREATE OR REPLACE FUNCTION public.chargeguard_claim(p_customer_id text, p_billing_period text, p_idempotency_key text, p_fingerprint text, p_amount_cents bigint, p_currency text, p_request jsonb, p_cap_cents bigint, p_now timestamp with time zone, p_locked_until timestamp with time zone, p_owner text, p_token text)
 RETURNS TABLE(is_claimed boolean, row_json jsonb)
 LANGUAGE plpgsql
AS $function$ BEGIN RAISE EXCEPTION 'chargeguard schema 5: billing_records moved to guard_records; this replica runs an older release and must not bill (chargeguard_claim)' USING ERRCODE = 'CG002'; END $function$;

CREATE OR REPLACE FUNCTION public.chargeguard_claim_many(p_customer_ids text[], p_billing_periods text[], p_idempotency_keys text[], p_fingerprints text[], p_amounts_cents bigint[], p_currencies text[], p_requests jsonb[], p_caps_cents bigint[], p_nows timestamp with time zone[], p_locked_untils timestamp with time zone[], p_owners text[], p_tokens text[])
 RETURNS TABLE(item integer, is_claimed boolean, row_json jsonb, over_cap boolean)
 LANGUAGE plpgsql
AS $function$ BEGIN RAISE EXCEPTION 'chargeguard schema 5: billing_records moved to guard_records; this replica runs an older release and must not bill (chargeguard_claim_many)' USING ERRCODE = 'CG002'; END $function$;

CREATE OR REPLACE FUNCTION public.chargeguard_guard_claim(p_scope text, p_record_key text, p_flow text, p_idempotency_key text, p_fingerprint text, p_payload jsonb, p_spend_period text, p_spend_currency text, p_spend_amount bigint, p_cap_cents bigint, p_now timestamp with time zone, p_locked_until timestamp with time zone, p_owner text, p_token text)
 RETURNS TABLE(is_claimed boolean, row_json jsonb, over_cap boolean)
 LANGUAGE plpgsql
AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION public.chargeguard_guard_claim_many(p_scopes text[], p_record_keys text[], p_flows text[], p_idempotency_keys text[], p_fingerprints text[], p_payloads jsonb[], p_spend_periods text[], p_spend_currencies text[], p_spend_amounts bigint[], p_caps_cents bigint[], p_nows timestamp with time zone[], p_locked_untils timestamp with time zone[], p_owners text[], p_tokens text[])
 RETURNS TABLE(item integer, is_claimed boolean, row_json jsonb, over_cap boolean)
 LANGUAGE plpgsql
AS $function$
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_scopes, 1), 0) LOOP
    RETURN QUERY
      SELECT i, c.is_claimed, c.row_json, c.over_cap
        FROM chargeguard_guard_claim(p_scopes[i], p_record_keys[i], p_flows[i], p_idempotency_keys[i], p_fingerprints[i],
                                     p_payloads[i], p_spend_periods[i], p_spend_currencies[i], p_spend_amounts[i],
                                     p_caps_cents[i], p_nows[i], p_locked_untils[i], p_owners[i], p_tokens[i]) c;
  END LOOP;
END
$function$;

CREATE OR REPLACE FUNCTION public.chargeguard_reserve(p_billing_period text, p_currency text, p_amount_cents bigint, p_cap_cents bigint, p_now timestamp with time zone)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
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
$function$;

-- version 1: billing_records and spend_ledger
-- version 2: chargeguard_claim: a claim in one statement
-- version 3: chargeguard_claim_many: concurrent claims in one statement
-- version 4: spend caps per (period, currency); guard_records for any flow behind the guard
-- version 5: one record table: billing_records moved into guard_records; claims batched over guard_records
