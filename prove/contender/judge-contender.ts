// The judgement of one contender once its fleet has stopped: the ground truth measured at the emulators (what reached
// Stripe, what was dead-lettered, the consumer's recorded declines), `chargeguard audit`'s view of the same Stripe
// account beside it, the contender's own telemetry, and the verdict.
import { auditContenderAccount } from "../measure/account-audit.js";
import type { ContenderAccount } from "./contender-account.js";
import { contenderQueue, sandboxStripeKey, type ContenderSandbox } from "./contender-sandbox.js";
import { describeExpectedFailure, type Contender } from "./contenders.js";
import type { FaultPlan } from "../faults/faults.js";
import { deadLetteredEventIds, measure, unresolvedEvents, verdict } from "../measure/metrics.js";
import { deadLetters, recordedEvents, type SqlReader } from "../measure/observe.js";
import type { ReplicaFleet } from "./replica-fleet.js";
import type { ContenderResult } from "../run/run-types.js";
import { describeUnresolved, inFlightEvents, queuedByEvent, unresolvedEvidence } from "../measure/unresolved.js";
import type { Workload } from "../workload/workload.js";

export interface ContenderJudgement {
  contender: Contender;
  workload: Workload;
  plan: FaultPlan;
  sandbox: Pick<ContenderSandbox, "servicebus" | "stripe" | "telemetry">;
  /** The contender's records (its PGlite, or a scenario's PostgreSQL). */
  records: SqlReader;
  account: ContenderAccount;
  fleet: ReplicaFleet;
  wallMs: number;
  /** Why the run did not finish as it should (timed out, a replica could not start). */
  error: string | undefined;
  /** False when the run was given up on before its queue settled: what it left in flight is unsettled, not lost. */
  settled: boolean;
  /** Logs a line of the contender's (the caller names the contender). */
  log(line: string): void;
}

export async function judgeContender(run: ContenderJudgement): Promise<ContenderResult> {
  const { contender, workload, plan, sandbox, account, fleet, log } = run;
  const { servicebus, stripe } = sandbox;
  const snapshot = servicebus.inspect(contenderQueue);
  const letters = deadLetters(snapshot, account.directory, account.workloadBody);
  const records = await recordedEvents(run.records, workload, contender.flow);
  const queued = queuedByEvent(workload, snapshot, (body) => account.workloadBody?.(body) ?? account.directory.bodyToWorkload(body));
  const attempts = account.shape.attempts(stripe.ledger, account.directory);
  const metrics = measure(workload, {
    attempts,
    paymentIntents: account.shape.objects(stripe.ledger),
    deadLetters: letters,
    deliveries: servicebus.counts(contenderQueue).deliveries,
    recordedDeclines: records.declined,
    ...(plan.periodCapCents !== undefined ? { periodCapCents: plan.periodCapCents } : {}),
    ...(run.settled ? {} : { inFlight: inFlightEvents(queued, records) }),
    wallMs: run.wallMs,
  });
  const unresolved = unresolvedEvents(workload, { attempts, deadLetters: letters, recordedDeclines: records.declined });
  for (const line of describeUnresolved(unresolvedEvidence(workload, unresolved, { queued, records, deadLetters: letters }), run.settled)) log(line);
  const accountAudit = await auditContenderAccount({ apiKey: sandboxStripeKey, apiBase: stripe.apiBase }, contender.flow, metrics.duplicateCharges);
  const scaleIns = plan.scaleIns.size > 0 ? { ...fleet.scaleIns } : undefined;
  const scaledIn = scaleIns ? `, ${scaleIns.drained} scaled-in replica(s) drained and ${scaleIns.killed} SIGKILLed` : "";
  log(`${fleet.kills} replica(s) killed${scaledIn}; ${verdict(metrics)}`);
  const dlq = deadLetteredEventIds(workload, letters);
  const missing = workload.events.filter((event) => event.expected === "dead-lettered" && !dlq.has(event.id));
  if (missing.length > 0) log(`malformed events not dead-lettered: ${missing.map((event) => `${event.id} (${event.malformation})`).join(", ")}`);
  return {
    name: contender.name,
    kind: contender.kind,
    flow: contender.flow,
    ...(contender.expectedFailure ? { expectedFailure: describeExpectedFailure(contender.expectedFailure) } : {}),
    metrics,
    telemetry: await sandbox.telemetry.summary(),
    ...(scaleIns ? { scaleIns } : {}),
    ...(accountAudit ? { accountAudit } : {}),
    verdict: verdict(metrics),
    ...(run.error ? { error: run.error } : {}),
  };
}
