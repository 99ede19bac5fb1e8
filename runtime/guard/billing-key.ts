// One billing record is addressed by (customer, billing period): its key, the SQL condition that finds its row, and
// the order in which batches touch rows.

export type BillingKey = { customerId: string; billingPeriod: string };

/** The WHERE condition of one record, with the customer as $1 and the period as $2. */
export const recordKey = "customer_id = $1 AND billing_period = $2";

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byKey = (a: BillingKey, b: BillingKey): number => compare(a.billingPeriod, b.billingPeriod) || compare(a.customerId, b.customerId);

/**
 * Items in (period, customer) order, with their original positions. Batches written at the same time (by this guard
 * or by other replicas) then take the periods' ledger rows in one order and cannot deadlock on them.
 */
export function sortedByKey<T>(items: T[], key: (item: T) => BillingKey): { item: T; at: number }[] {
  return items.map((item, at) => ({ item, at })).sort((a, b) => byKey(key(a.item), key(b.item)));
}
