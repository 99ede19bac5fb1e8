-- description: billing_records and spend_ledger
-- retired: schema 5 moved billing_records into guard_records (the table stays as billing_records_v4, for the audit
-- trail) and schema 4 rebuilt spend_ledger per (period, currency). A new database still runs this step so that every
-- database reaches the same schema through the same versions.

CREATE TABLE billing_records (
  customer_id      text        NOT NULL CHECK (length(customer_id) BETWEEN 1 AND 255),
  billing_period   text        NOT NULL CHECK (length(billing_period) BETWEEN 1 AND 64),
  state            text        NOT NULL CHECK (state IN ('pending', 'charged', 'completed', 'declined')),
  idempotency_key  text        NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 255),
  fingerprint      text        NOT NULL,
  amount_cents     bigint      NOT NULL CHECK (amount_cents > 0),
  currency         text        NOT NULL,
  payment_intent_id text,
  attempts         integer     NOT NULL DEFAULT 1,
  locked_until     timestamptz,
  lock_owner       text,
  lease_token      text,
  request          jsonb       NOT NULL,
  decline_reason   text,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  PRIMARY KEY (customer_id, billing_period),
  CHECK (state = 'pending' OR lease_token IS NULL),
  CHECK (state NOT IN ('charged', 'completed') OR payment_intent_id IS NOT NULL)
);

CREATE INDEX billing_records_pending_lease ON billing_records (locked_until) WHERE state = 'pending';

-- committed = reserved (pending) + charged: only a claim adds and only a decline gives back, so recording a charge
-- needs no write to this hot per-period row (one row lock per billing, not two).
CREATE TABLE spend_ledger (
  billing_period  text        PRIMARY KEY,
  cap_cents       bigint      CHECK (cap_cents IS NULL OR cap_cents >= 0),
  committed_cents bigint      NOT NULL DEFAULT 0 CHECK (committed_cents >= 0),
  updated_at      timestamptz NOT NULL
);
