// Every statement that takes a spend ledger row and a record row takes the ledger row first. A claim batch used to
// take, claim by claim, a new record's row then its period's ledger row then the next record's row, while a decline
// or a forget took its record's row then the ledger's: a batch holding the ledger while it waited for a record that
// another replica was declining, itself waiting for the ledger, was a deadlock, and PostgreSQL ended one of the two
// ("deadlock detected": a decline lost, or every claim of the batch written again). Now a batch locks the ledger rows
// of its spends first, in (period, currency) order, and a decline or forget locks its record's ledger row before the
// record (reservation-sql.ts); no statement holds a record while it waits for a ledger row.
import type { Migration } from "./migration.js";
import { claimManyFunction } from "./migration-one-table.js";

export const ledgerFirst: Migration = {
  version: 7,
  description: "lock order: a claim batch locks its spends' ledger rows before any record",
  statements: [
    claimManyFunction(`
      PERFORM 1
         FROM spend_ledger l
         JOIN (SELECT DISTINCT period, currency FROM unnest(p_spend_periods, p_spend_currencies) AS s(period, currency)) s
           ON l.billing_period = s.period AND l.currency = s.currency
        ORDER BY l.billing_period, l.currency
          FOR UPDATE OF l;`),
  ],
};
