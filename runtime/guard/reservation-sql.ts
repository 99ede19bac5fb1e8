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
 * `WITH <name> AS (<change>), ledger AS (give back) SELECT count(*) AS <name> FROM <name>`: `change` must return the
 * reservation's columns; `nowParam` is the placeholder of the statement's clock (`$5`).
 */
export function givingBackReservation(name: string, change: string, columns: ReservationColumns, nowParam: string): string {
  return `WITH ${name} AS (
         ${change}
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
