/** A guard operation that contradicts the record's state (e.g. completing a record that was never charged). */
export class BillingStateError extends Error {
  override name = "BillingStateError";
}
