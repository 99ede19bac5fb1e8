// One SQL shape for "this record leaves pending without a charge, so its spend reservation goes back": a decline and
// a forgotten first attempt of either record table. The record's change and the ledger's are one statement, so a
// crash between them cannot leave a reservation nobody holds.

/** The columns of the changed record's `RETURNING` that name its reservation. */
export interface ReservationColumns {
  period: string;
  currency: string;
  amount: string;
}

/**
 * `WITH <name> AS (<change>), ledger AS (give back) SELECT count(*) AS <name> FROM <name>`: `change` (an UPDATE or
 * DELETE of guard_records ending in its WHERE, the record at $1 scope and $2 record key) must return the reservation's
 * columns; `nowParam` is the placeholder of the statement's clock (`$5`). The record's ledger row is locked before the
 * record (a one-time filter evaluated before the record is read), the order a claim batch takes them in
 * (sql/000007.sql): the other order deadlocked against a batch.
 */
export function givingBackReservation(name: string, change: string, columns: ReservationColumns, nowParam: string): string {
  return `WITH ledger_first AS (
         SELECT 1 FROM spend_ledger l
           JOIN guard_records r ON l.billing_period = r.${columns.period} AND l.currency = r.${columns.currency}
          WHERE r.scope = $1 AND r.record_key = $2
            FOR UPDATE OF l
       ), ${name} AS (
         ${change} AND (SELECT count(*) FROM ledger_first) >= 0
          RETURNING ${columns.period}, ${columns.currency}, ${columns.amount}
       ), ledger AS (
         UPDATE spend_ledger l
            SET committed_cents = l.committed_cents - s.${columns.amount}, updated_at = ${nowParam}
           FROM ${name} s
          WHERE l.billing_period = s.${columns.period} AND l.currency = s.${columns.currency}
          RETURNING 1
       )
       SELECT count(*) AS ${name} FROM ${name}`;
}
