// `chargeguard audit`'s engine: read the account (within a request budget), find duplicates customer by customer
// from a bounded spool, and optionally refund them. The result holds the groups found, never the payments read.
import { loadStripe } from "../sdk/load-stripe.js";
import { stripeHostFor } from "../stripe/key-destination.js";
import { budgetedHttpClient, type RequestCounters, type AuditRetryPolicy } from "./budgeted-http-client.js";
import { collectPayments, readUncoveredPayments, type CollectProgress } from "./collect.js";
import { detectDuplicates, type DisputedGroup, type DuplicateGroup, type ResolvedDuplicate } from "./detect.js";
import { DisputeIndex, readDisputes } from "./disputes.js";
import type { AuditFlow } from "./payment-record.js";
import { issueRefunds, planRefunds, type PlannedRefund, type RefundOutcome } from "./refund-duplicates.js";
import type { RequestBudget } from "./request-budget.js";
import { PaymentSpool, type SpoolOptions } from "./spool.js";

export interface AuditOptions {
  apiKey: string;
  /** e.g. http://127.0.0.1:12111; absent: api.stripe.com */
  apiBase?: string;
  budget: RequestBudget;
  flows: readonly AuditFlow[];
  /** Dotted path of the business key, e.g. ["metadata", "usage_id"]. */
  keyPath: readonly string[];
  windowSeconds: number;
  since?: number;
  until?: number;
  customer?: string;
  /** "plan": list the refunds it would make; "issue": make them. Absent: detection only. */
  refund?: "plan" | "issue";
  /** Likely duplicates to refund as well (their ids). */
  refundIds?: ReadonlySet<string>;
  spool?: SpoolOptions;
  retry?: AuditRetryPolicy;
  onProgress?: (progress: CollectProgress & RequestCounters) => void;
  onRefund?: (outcome: RefundOutcome) => void;
}

export interface AuditResult {
  groups: DuplicateGroup[];
  resolved: ResolvedDuplicate[];
  /** Duplicate groups an open or won dispute holds back from refunds: for a person. */
  disputed: DisputedGroup[];
  /** Payments that took money, read and examined. */
  examined: number;
  /** Of the payments read, those carrying a business key at `keyPath` (0 of many: the key is elsewhere). */
  keyed: number;
  requests: RequestCounters;
  refunds?: { planned: PlannedRefund[]; outcomes?: RefundOutcome[] };
}

export async function auditAccount(options: AuditOptions): Promise<AuditResult> {
  const requests: RequestCounters = { requests: 0, retries: 0, rateLimited: 0 };
  const Stripe = loadStripe();
  const stripe = new Stripe(options.apiKey, {
    // Retries happen below the SDK, inside the budget (see budgeted-http-client.ts).
    maxNetworkRetries: 0,
    timeout: 30_000,
    httpClient: budgetedHttpClient(options.budget, requests, options.retry),
    ...stripeHostFor(options.apiKey, options.apiBase),
  });
  const spool = new PaymentSpool(options.spool);
  const groups: DuplicateGroup[] = [];
  const resolved: ResolvedDuplicate[] = [];
  const disputed: DisputedGroup[] = [];
  let examined = 0;
  let keyed = 0;
  // Read once, and only when a payment read says it was disputed: an account without disputes pays no request.
  let disputes: DisputeIndex | undefined;
  const disputesIf = async (needed: boolean) => (needed ? (disputes ??= await readDisputes(stripe, options.since)) : (disputes ?? DisputeIndex.empty));
  try {
    const collected = await collectPayments(stripe, spool, {
      flows: options.flows,
      keyPath: options.keyPath,
      ...(options.since === undefined ? {} : { since: options.since }),
      ...(options.until === undefined ? {} : { until: options.until }),
      ...(options.customer === undefined ? {} : { customer: options.customer }),
      ...(options.onProgress ? { onProgress: (progress: CollectProgress) => options.onProgress?.({ ...progress, ...requests }) } : {}),
    });
    keyed = collected.keyed;
    for await (const records of spool.customers()) {
      const support = await readUncoveredPayments(stripe, records, options.keyPath);
      const index = await disputesIf(collected.disputed > 0 || support.some((record) => record.disputed));
      const found = detectDuplicates(support.length > 0 ? [...records, ...support] : records, options.windowSeconds, index);
      examined += found.examined;
      groups.push(...found.groups);
      resolved.push(...found.resolved);
      disputed.push(...found.disputed);
    }
  } finally {
    await spool.close();
  }
  const order = (a: { customer: string; keep: string }, b: { customer: string; keep: string }) => a.customer.localeCompare(b.customer) || a.keep.localeCompare(b.keep);
  groups.sort(order);
  resolved.sort(order);
  disputed.sort(order);
  const result: AuditResult = { groups, resolved, disputed, examined, keyed, requests };
  if (options.refund !== undefined) {
    const planned = planRefunds(groups, options.refundIds ? { likelyIds: options.refundIds } : {});
    result.refunds = { planned, ...(options.refund === "issue" ? { outcomes: await issueRefunds(stripe, planned, options.onRefund) } : {}) };
  }
  return result;
}
