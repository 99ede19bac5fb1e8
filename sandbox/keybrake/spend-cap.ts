// A vault key's daily spend cap. Creating what moves money spends (a PaymentIntent, a Charge, an invoice item: the
// `amount` each carries); its amount is reserved before forwarding so
// concurrent calls cannot overshoot together, and released unless Stripe accepted it. A replay under an idempotency
// key already counted is not a new spend.
// A key created into a shared budget spends the budget's (vault-keys.ts): one cap for all of them.

/** What a cap counts: a key's own, or a budget its keys share. */
export interface SpendAccount {
  capCents: number;
  /** Cents charged (or in flight) per UTC day, `YYYY-MM-DD`. */
  spentCentsByDay: Record<string, number>;
  /** Idempotency keys whose amount is counted against the cap: a replay is not a new spend. */
  counted: Set<string>;
}

export interface SpendRequest {
  method: string | undefined;
  path: string;
  body: Buffer;
  idempotencyKey: string | undefined;
  /** The UTC day the spend counts against, `YYYY-MM-DD`. */
  day: string;
}

export type SpendReservation = { refused: string } | { release(): void };

/** The create calls whose `amount` is money the key spends. */
const spendingPaths = new Set(["/v1/payment_intents", "/v1/charges", "/v1/invoiceitems"]);

export function reserveSpend(key: SpendAccount, { method, path, body, idempotencyKey, day }: SpendRequest): SpendReservation {
  let reserved = 0;
  if (method === "POST" && spendingPaths.has(path)) {
    const amount = Number(new URLSearchParams(body.toString("utf8")).get("amount"));
    const alreadyCounted = idempotencyKey !== undefined && key.counted.has(idempotencyKey);
    if (!alreadyCounted && Number.isSafeInteger(amount) && amount > 0) {
      const spent = key.spentCentsByDay[day] ?? 0;
      if (spent + amount > key.capCents) {
        return { refused: `charging ${amount} would take today's spend to ${spent + amount}, over the cap of ${key.capCents} cents` };
      }
      reserved = amount;
      key.spentCentsByDay[day] = spent + amount;
      if (idempotencyKey !== undefined) key.counted.add(idempotencyKey);
    }
  }
  return {
    release: () => {
      if (reserved === 0) return;
      key.spentCentsByDay[day] = (key.spentCentsByDay[day] ?? 0) - reserved;
      if (idempotencyKey !== undefined) key.counted.delete(idempotencyKey);
      reserved = 0;
    },
  };
}
