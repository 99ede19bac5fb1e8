// The workload names customers `cus_pg000123`; a fresh Stripe account assigns its own ids. The directory creates
// one Stripe customer per workload customer and translates both ways: bodies on the way out, the ledger on the way in.
import type Stripe from "stripe";

export interface CustomerDirectory {
  toStripe(workloadId: string): string;
  /** The customer whose default card declines (created with `decliningTwins`), else the customer itself. */
  toStripeDeclining(workloadId: string): string;
  toWorkload(stripeId: string): string | undefined;
  /** The body with its `stripeCustomerId` translated; anything that is not such an object passes unchanged. */
  bodyToStripe(body: unknown): unknown;
  bodyToWorkload(body: unknown): unknown;
}

export interface CustomerOptions {
  /**
   * Flows that bill the customer's default card (Charges, invoices): every customer gets a default card that
   * succeeds, and each of `decliningTwins` a second Stripe customer whose default card declines (its declining events
   * are billed there; both translate back to the same workload customer).
   */
  defaultCards?: { decliningTwins: Iterable<string> };
  concurrency?: number;
}

const cards = { succeeds: "pm_card_visa", declines: "pm_card_chargeDeclined" } as const;

export async function createStripeCustomers(stripe: Stripe, workloadIds: readonly string[], options: CustomerOptions = {}): Promise<CustomerDirectory> {
  const toStripe = new Map<string, string>();
  const toStripeDeclining = new Map<string, string>();
  const toWorkload = new Map<string, string>();
  const twins = new Set(options.defaultCards?.decliningTwins ?? []);
  const wanted = [...workloadIds.map((id) => ({ id, declining: false })), ...workloadIds.filter((id) => twins.has(id)).map((id) => ({ id, declining: true }))];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < wanted.length) {
      const { id: workloadId, declining } = wanted[next++] as { id: string; declining: boolean };
      const customer = await stripe.customers.create({
        description: workloadId,
        metadata: { workload_id: workloadId },
        ...(options.defaultCards ? { source: declining ? cards.declines : cards.succeeds } : {}),
      });
      (declining ? toStripeDeclining : toStripe).set(workloadId, customer.id);
      toWorkload.set(customer.id, workloadId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 16, wanted.length) }, worker));
  const translate = (body: unknown, map: Map<string, string>): unknown => {
    if (body === null || typeof body !== "object" || Array.isArray(body) || Buffer.isBuffer(body)) return body;
    const id = (body as Record<string, unknown>).stripeCustomerId;
    const translated = typeof id === "string" ? map.get(id) : undefined;
    return translated === undefined ? body : { ...body, stripeCustomerId: translated };
  };
  const toStripeOrThrow = (workloadId: string): string => {
    const id = toStripe.get(workloadId);
    if (id === undefined) throw new Error(`no Stripe customer for workload customer ${workloadId}`);
    return id;
  };
  return {
    toStripe: toStripeOrThrow,
    toStripeDeclining: (workloadId) => toStripeDeclining.get(workloadId) ?? toStripeOrThrow(workloadId),
    toWorkload: (stripeId) => toWorkload.get(stripeId),
    bodyToStripe: (body) => translate(body, toStripe),
    bodyToWorkload: (body) => translate(body, toWorkload),
  };
}
