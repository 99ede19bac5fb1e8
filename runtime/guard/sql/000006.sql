-- description: unsettleable records: what the reconciler cannot settle, kept with its reason for an operator
--
-- A record the reconciler can never settle (a meter event past Stripe's identifier window, a refusal past the key
-- window) moves to a state of its own, kept with its reservation and the reason, out of the oldest-first queue
-- (held-records.ts); an operator resolves it.

ALTER TABLE guard_records DROP CONSTRAINT IF EXISTS guard_records_state_check;
ALTER TABLE guard_records ADD CONSTRAINT guard_records_state_check CHECK (state IN ('pending', 'done', 'declined', 'unsettleable'));
ALTER TABLE guard_records ADD COLUMN held_reason text;
