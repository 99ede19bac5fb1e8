// The SDK's own HTTP client, behind a request budget and retrying what Stripe says is safe to retry: 429 (a rate
// limit means "not executed") and 5xx unless `Stripe-Should-Retry: false`, and connection errors. Retrying below the
// SDK means a list's auto-pagination never sees the failure, so a long audit keeps its place; a POST is only ever
// retried with its idempotency key (the SDK sends one on every POST), so a refund is not made twice.
import { setTimeout as sleep } from "node:timers/promises";
import type Stripe from "stripe";
import { loadStripe } from "../sdk/load-stripe.js";
import type { RequestBudget } from "./request-budget.js";

type NodeClient = ReturnType<typeof Stripe.createNodeHttpClient>;
type Response = Awaited<ReturnType<NodeClient["makeRequest"]>>;

export interface AuditRetryPolicy {
  /** Attempts per request, the first included. */
  maxAttempts: number;
  /** First back-off; doubled per attempt with full jitter, capped at `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface RequestCounters {
  requests: number;
  retries: number;
  rateLimited: number;
}

export const auditRetryPolicy: AuditRetryPolicy = { maxAttempts: 8, baseDelayMs: 500, maxDelayMs: 20_000 };

/**
 * Until Stripe first answers, its origin must answer within this (retries and each try's timeout included): an
 * origin that is wrong or down is said at once, not after the whole retry policy (31.5 s, eight tries). Once it has
 * answered, a connection error is a blip of a long audit and gets the whole policy.
 */
export const firstAnswerWithinMs = 5_000;

export function budgetedHttpClient(budget: RequestBudget, counters: RequestCounters, policy: AuditRetryPolicy = auditRetryPolicy): NodeClient {
  const inner = loadStripe().createNodeHttpClient();
  let answered = false;
  let reachBy: number | undefined;
  return Object.assign(Object.create(inner) as NodeClient, {
    async makeRequest(...args: Parameters<NodeClient["makeRequest"]>): Promise<Response> {
      for (let attempt = 1; ; attempt++) {
        await budget.take();
        counters.requests++;
        reachBy ??= Date.now() + firstAnswerWithinMs;
        const left = answered ? Infinity : reachBy - Date.now();
        const last = attempt >= policy.maxAttempts || left <= 0;
        let response: Response;
        try {
          // The try's timeout (the last argument) is cut to what is left of the first-answer deadline.
          const timeoutMs = Math.max(1, Math.min(args[7], left));
          response = await inner.makeRequest(args[0], args[1], args[2], args[3], args[4], args[5], args[6], timeoutMs);
        } catch (error) {
          const waitMs = backoffMs(policy, attempt);
          if (last || (!answered && Date.now() + waitMs >= reachBy)) throw error;
          counters.retries++;
          await sleep(waitMs);
          continue;
        }
        answered = true;
        const status = response.getStatusCode();
        if (status === 429) counters.rateLimited++;
        if (last || !retryable(status, response.getHeaders()["stripe-should-retry"])) return response;
        // Drain the refused answer so its socket goes back to the pool.
        await response.toJSON().catch(() => undefined);
        counters.retries++;
        await sleep(backoffMs(policy, attempt));
      }
    },
  });
}

function retryable(status: number, shouldRetry: unknown): boolean {
  if (shouldRetry === "false") return false;
  return status === 429 || status === 409 || status >= 500 || shouldRetry === "true";
}

function backoffMs(policy: AuditRetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}
