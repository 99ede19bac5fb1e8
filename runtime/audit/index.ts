// `chargeguard audit`: find and refund the double charges already in a Stripe account (see runtime/README.md,
// "Auditing an account for double charges").
export { auditAccount, type AuditOptions, type AuditResult } from "./audit-account.js";
export { formatAmount, formatAudit, summarize, type AuditFormat, type AuditSummary } from "./audit-report.js";
export {
  budgetedHttpClient,
  firstAnswerWithinMs,
  auditRetryPolicy,
  type RequestCounters,
  type AuditRetryPolicy,
} from "./budgeted-http-client.js";
export { detectDuplicates, type Confidence, type CustomerFindings, type DuplicateGroup, type DuplicatePayment, type ResolvedDuplicate } from "./detect.js";
export { auditFlows, type AuditFlow, type PaymentRecord } from "./payment-record.js";
export { planRefunds, refundIdempotencyKey, type PlannedRefund, type RefundOutcome } from "./refund-duplicates.js";
export { TokenBucket, type RequestBudget } from "./request-budget.js";
export { PaymentSpool, type SpoolOptions } from "./spool.js";
