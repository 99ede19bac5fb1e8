// The contenders: every broken example of the seeds (examples/broken) and the consumers `chargeguard new consumer`
// generates, one per Stripe flow (examples/generated-consumer, examples/generated-consumer-<flow>). All follow runtime/consumer/consumer-contract.ts, so one harness runs them all.
import type { ConsumerContext, StartConsumer } from "../../runtime/index.js";
import { brokenExamples, type ExpectedFailure } from "../../examples/broken/index.js";
import { faultCatalogue, type FaultName } from "../faults/faults.js";
import type { ProvingFlow } from "../workload/flows.js";
import type { ContenderKind } from "../run/run-types.js";
import { runReconciler, type ReconcilerRun } from "./reconciler-run.js";
import { harnessLeaseMs, type HarnessSettings } from "../run/settings.js";

export interface Contender {
  name: string;
  kind: ContenderKind;
  /** The Stripe flow it bills through: the harness sends that flow's bodies and counts that flow's objects. */
  flow: ProvingFlow;
  load(): Promise<{ startConsumer: StartConsumer }>;
  failureMode?: string;
  expectedFailure?: ExpectedFailure;
  triggeringFault?: FaultName | "none";
  /** Receiver settings the harness scales down with its short locks (the example's own values assume Azure's 60 s). */
  contextFor?(settings: HarnessSettings): Partial<ConsumerContext>;
  /** What an operator runs once the fleet stopped (the generated consumer's reconciler, as from cron). */
  afterRun?(run: ReconcilerRun): Promise<void>;
}

export const generatedConsumerName = "generated-consumer";

/** Stripe calls of the workload's invoices (one line each): create, the item, finalize, pay. */
const oneLineInvoiceCalls = 4;

/** The harness's lease for a generated consumer whose events make this many Stripe calls (settings.ts). */
const scaledLease = (stripeCalls: number) => (settings: HarnessSettings) => ({ leaseMs: harnessLeaseMs(settings, stripeCalls) });

/** An example's triggering fault, checked against the catalogue (examples name it as plain text). */
function triggeringFault(example: string, fault: string): FaultName | "none" {
  if (fault === "none" || fault in faultCatalogue) return fault as FaultName | "none";
  throw new Error(`broken example ${example}: triggeringFault "${fault}" is not a proving-ground fault`);
}

export function contenders(): Contender[] {
  const examples: Contender[] = brokenExamples.map((example) => ({
    name: example.name,
    kind: "example",
    flow: example.flow ?? "payment-intent",
    load: example.load,
    failureMode: example.failureMode,
    expectedFailure: example.expectedFailure,
    triggeringFault: triggeringFault(example.name, example.triggeringFault),
    // Its bug is a renewal deadline equal to the queue's LockDuration: keep it equal to the harness's lock.
    ...(example.name === "short-renewal-deadline"
      ? { contextFor: (settings: HarnessSettings) => ({ maxAutoLockRenewalDurationInMs: settings.lockDurationMs }) }
      : {}),
  }));
  return [
    ...examples,
    {
      name: generatedConsumerName,
      kind: "generated",
      flow: "payment-intent",
      load: () => import("../../examples/generated-consumer/src/consumer.js"),
      contextFor: scaledLease(1),
      afterRun: runReconciler,
    },
    // `chargeguard new consumer --flow X` per other flow, committed as examples/generated-consumer-X.
    {
      name: `${generatedConsumerName}-charge`,
      kind: "generated",
      flow: "charge",
      load: () => import("../../examples/generated-consumer-charge/src/consumer.js"),
      contextFor: scaledLease(1),
      afterRun: runReconciler,
    },
    {
      name: `${generatedConsumerName}-invoice`,
      kind: "generated",
      flow: "invoice",
      // Its lease covers the flow's most calls (3 + 20 items, minutes); the workload's invoices have one line: create,
      // item, finalize, pay. Sized for those, a lock lapsed mid-flow waits one such lease for the retry, not 23.
      contextFor: scaledLease(oneLineInvoiceCalls),
      load: () => import("../../examples/generated-consumer-invoice/src/consumer.js"),
      afterRun: runReconciler,
    },
    {
      name: `${generatedConsumerName}-meter-event`,
      kind: "generated",
      flow: "meter-event",
      load: () => import("../../examples/generated-consumer-meter-event/src/consumer.js"),
      contextFor: scaledLease(1),
      afterRun: runReconciler,
    },
  ];
}

export function selectContenders(all: readonly Contender[], names: readonly string[] | undefined): Contender[] {
  if (!names || names.length === 0) return [...all];
  const unknown = names.filter((name) => !all.some((contender) => contender.name === name));
  if (unknown.length > 0) {
    throw new Error(`unknown contender(s): ${unknown.join(", ")}; known: ${all.map((contender) => contender.name).join(", ")}`);
  }
  return all.filter((contender) => names.includes(contender.name));
}

export function describeExpectedFailure(failure: ExpectedFailure): string {
  return { duplicateCharges: "duplicate charges", lostBillings: "lost billings", repeatedDeclines: "repeated declines", deadLettered: "valid events dead-lettered" }[failure];
}
