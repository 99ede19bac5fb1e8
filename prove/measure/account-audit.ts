// After a contender's run, `chargeguard audit`'s engine reads the contender's Stripe account as an operator would,
// knowing nothing of the workload, and its count of duplicates is set beside the ground truth the proving ground
// computed from the ledger: they must agree for every contender, and the generated consumer's account audits clean.
// The workload gives each of a customer's events its own amount, and contenders write keys of their own (a broken
// one's may be random), so the audit groups by amount (no `--key`) over a window longer than the run (the late
// resends come 25 h after on the emulator's clock). Before it reads, a customer of the check's own is billed with
// Stripe's dispute test cards (dispute-fixture.ts): the verdict also holds only when the audit reports that customer's
// lost dispute as money returned and its open one as held, apart from the contender's duplicates.
import { auditAccount, TokenBucket } from "../../runtime/audit/index.js";
import { seedDisputes } from "../workload/dispute-fixture.js";
import type { ProvingFlow } from "../workload/flows.js";

export interface AccountAudit {
  /** Duplicates the audit found (refunded ones included): payments beyond one per thing billed. */
  duplicates: number;
  /** The proving ground's own count, from the ledger and the workload. */
  groundTruth: number;
  /** The seeded disputes as the audit reported them: a lost one returned, an open one held (both expected 1). */
  disputes: { returnedByLostDispute: number; held: number };
  agrees: boolean;
  /** Stripe requests the audit made (pages of 100). */
  requests: number;
}

const windowSeconds = 30 * 86_400;
/** In-process emulator: the budget only keeps the audit from starving the other contenders' workers. */
const requestsPerSecond = 2_000;

/** Undefined for meter events: Stripe has no per-event read-back to audit (nor refund). */
export async function auditContenderAccount(stripe: { apiKey: string; apiBase: string }, flow: ProvingFlow, groundTruth: number): Promise<AccountAudit | undefined> {
  if (flow === "meter-event") return undefined;
  const fixture = await seedDisputes(stripe, flow);
  const result = await auditAccount({
    ...stripe,
    budget: new TokenBucket(requestsPerSecond),
    flows: [flow === "payment-intent" ? "paymentintents" : flow === "charge" ? "charges" : "invoices"],
    keyPath: ["metadata", "chargeguard_proving_ground_no_key"],
    windowSeconds,
  });
  const contenders = <T extends { customer: string }>(found: T[]) => found.filter((entry) => entry.customer !== fixture.customer);
  const duplicates = contenders(result.groups).reduce((sum, group) => sum + group.duplicates.length, 0) + contenders(result.resolved).length;
  const fixtureResolved = result.resolved.filter((entry) => entry.customer === fixture.customer);
  const disputes = {
    returnedByLostDispute: fixtureResolved.filter((entry) => entry.dispute !== undefined).length,
    held: result.disputed.filter((group) => group.customer === fixture.customer).length,
  };
  const disputesAgree =
    disputes.returnedByLostDispute === fixture.expected.returnedByLostDispute &&
    disputes.held === fixture.expected.held &&
    fixtureResolved.length === disputes.returnedByLostDispute &&
    !result.groups.some((group) => group.customer === fixture.customer) &&
    contenders(result.disputed).length === 0;
  return { duplicates, groundTruth, disputes, agrees: duplicates === groundTruth && disputesAgree, requests: result.requests.requests };
}

/** The report's row: what the audit found beside the ground truth. */
export function describeAccountAudit(audit: AccountAudit | undefined): [string, string][] {
  if (!audit) return [];
  const verdict = audit.agrees ? "agrees with the ground truth" : `DISAGREES with the ground truth (${audit.groundTruth.toLocaleString("en-US")}; disputes: 1 lost, 1 held expected)`;
  const disputes = `; seeded disputes: ${audit.disputes.returnedByLostDispute} lost (money returned), ${audit.disputes.held} held`;
  return [["chargeguard audit", `${audit.duplicates.toLocaleString("en-US")} duplicate(s) found${disputes}, ${verdict}`]];
}
