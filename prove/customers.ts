// The workload names customers `cus_pg000123`; a fresh Stripe account assigns its own ids. The directory creates
// one Stripe customer per workload customer and translates both ways: bodies on the way out, the ledger on the way in.
import type Stripe from "stripe";

export interface CustomerDirectory {
  toStripe(workloadId: string): string;
  toWorkload(stripeId: string): string | undefined;
  /** The body with its `stripeCustomerId` translated; anything that is not such an object passes unchanged. */
  bodyToStripe(body: unknown): unknown;
  bodyToWorkload(body: unknown): unknown;
}

export async function createStripeCustomers(stripe: Stripe, workloadIds: readonly string[], concurrency = 16): Promise<CustomerDirectory> {
  const toStripe = new Map<string, string>();
  const toWorkload = new Map<string, string>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < workloadIds.length) {
      const workloadId = workloadIds[next++] as string;
      const customer = await stripe.customers.create({ description: workloadId, metadata: { workload_id: workloadId } });
      toStripe.set(workloadId, customer.id);
      toWorkload.set(customer.id, workloadId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, workloadIds.length) }, worker));
  const translate = (body: unknown, map: Map<string, string>): unknown => {
    if (body === null || typeof body !== "object" || Array.isArray(body) || Buffer.isBuffer(body)) return body;
    const id = (body as Record<string, unknown>).stripeCustomerId;
    const translated = typeof id === "string" ? map.get(id) : undefined;
    return translated === undefined ? body : { ...body, stripeCustomerId: translated };
  };
  return {
    toStripe(workloadId) {
      const id = toStripe.get(workloadId);
      if (id === undefined) throw new Error(`no Stripe customer for workload customer ${workloadId}`);
      return id;
    },
    toWorkload: (stripeId) => toWorkload.get(stripeId),
    bodyToStripe: (body) => translate(body, toStripe),
    bodyToWorkload: (body) => translate(body, toWorkload),
  };
}
