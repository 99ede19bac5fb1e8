// The results of a proving-ground run, and their machine-readable form (the `--json` shape of issue 6).
import { formatCount, verdictOutcome } from "../measure/metrics.js";
import { runScale } from "../run/run-scale.js";
import type { FaultHits, FaultName } from "../faults/faults.js";
import type { ContenderResult, ProvingGroundJson, ProvingGroundResult, RunOutcome } from "../run/run-types.js";
import { scenariosToJson } from "../scenarios/scenario-report.js";

// The types live in run-types.ts (imports nothing of the run); named here too for the importers of this module.
export type { ContenderJson, ContenderKind, ContenderResult, ProvingGroundJson, ProvingGroundResult, RunOutcome } from "../run/run-types.js";

type RunContenders = Pick<ProvingGroundResult, "contenders" | "scenarios">;

/** Every run of the generated consumer: the chaos run's and each degraded scenario's. */
function generatedRuns(result: RunContenders): ContenderResult[] {
  return [...result.contenders, ...(result.scenarios ?? []).flatMap((outcome) => outcome.contenders)].filter((contender) => contender.kind === "generated");
}

/**
 * Failed when a generated consumer's run failed (broken examples failing is what they are there to show); else did not
 * settle (inconclusive, exit 3) when one was given up on with billings still in flight; else passed.
 */
export function runOutcome(result: RunContenders): RunOutcome {
  const outcomes = generatedRuns(result).map((contender) => verdictOutcome(contender.verdict));
  if (outcomes.includes("fail")) return "failed";
  return outcomes.includes("did-not-settle") ? "did-not-settle" : "passed";
}

/** The run passes when every generated contender run passes. */
export function runPassed(result: RunContenders): boolean {
  return runOutcome(result) === "passed";
}

/** Billings the generated consumer's runs left in flight when they were given up on. */
export function unsettledBillingsOf(result: RunContenders): number {
  return generatedRuns(result).reduce((sum, contender) => sum + contender.metrics.unsettledBillings, 0);
}

/**
 * Said wherever the verdict is printed: a seed fixes the workload and the fault schedule, but which deliveries meet a
 * fault depends on timing (lock expiry, replica kills, the machine's load), so counts differ between runs of one seed.
 */
/**
 * The run's faults with how often each hit a contender, in the run's order: "slow-stripe 4, commit-drop 3, ...". The
 * spend cap is a limit, not an event: its effect is the over-cap column.
 */
export function describeFaultHits(faults: readonly FaultName[], hits: FaultHits | undefined): string {
  const counted = faults.filter((fault) => fault !== "spend-cap");
  if (counted.length === 0) return "none";
  return counted.map((fault) => `${fault} ${formatCount(hits?.[fault] ?? 0)}`).join(", ");
}

export const countsVaryNote =
  "Same seed, same verdict: which contenders pass and fail is reproducible, the counts are not (timing decides which messages meet a fault; duplicates vary by tens between runs).";

/** The run's verdict in one line (the CLI's last line, the HTML report's headline): what it proved, and that failing broken examples are expected. */
export function describeVerdict(result: ProvingGroundResult): string {
  const outcome = runOutcome(result);
  const examples = result.contenders.filter((contender) => contender.kind === "example");
  const failedAsExpected = examples.filter((contender) => contender.verdict.startsWith("FAIL")).length;
  const generated = result.contenders.filter((contender) => contender.kind === "generated");
  const chaosOutcome = runOutcome({ contenders: generated });
  const scenarioGenerated = (result.scenarios ?? []).flatMap((each) => each.contenders).filter((contender) => contender.kind === "generated");
  const unsettledRuns = scenarioGenerated.filter((contender) => verdictOutcome(contender.verdict) === "did-not-settle").length;
  const parts = [
    examples.length > 0 ? `${failedAsExpected} of ${examples.length} broken example(s) failed, as they are expected to` : undefined,
    generated.length > 0
      ? `the generated consumer ${{ passed: "passed", failed: "FAILED", "did-not-settle": "did not settle" }[chaosOutcome]}`
      : result.scenarios
        ? undefined
        : "no generated consumer in this run",
    scenarioGenerated.length > 0
      ? `degraded scenarios: the generated consumer passed ${scenarioGenerated.filter((c) => c.verdict.startsWith("PASS")).length} of ${scenarioGenerated.length}${unsettledRuns > 0 ? `, ${unsettledRuns} did not settle` : ""}`
      : undefined,
    outcome === "did-not-settle" ? `${formatCount(unsettledBillingsOf(result))} billing(s) still in flight, neither billed, refused nor dead-lettered (inconclusive)` : undefined,
  ].filter(Boolean);
  return `${{ passed: "PASSED", failed: "FAILED", "did-not-settle": "DID NOT SETTLE" }[outcome]}: ${parts.join("; ")}`;
}

export function toJson(result: ProvingGroundResult): ProvingGroundJson {
  return {
    seed: result.seed,
    events: result.events,
    scale: runScale(result),
    faults: result.faults,
    passed: runPassed(result),
    outcome: runOutcome(result),
    unsettledBillings: unsettledBillingsOf(result),
    contenders: result.contenders.map(({ name, kind, flow, metrics, verdict, expectedFailure, scaleIns, telemetry, accountAudit, faultHits, timing }) => ({
      name,
      kind,
      flow,
      verdict,
      outcome: verdictOutcome(verdict),
      ...(expectedFailure === undefined ? {} : { expectedFailure }),
      malformed: { events: metrics.malformedEvents, deadLettered: metrics.malformedDeadLettered, charged: metrics.malformedCharged },
      events: metrics.events,
      paymentIntents: metrics.paymentIntents,
      duplicateCharges: metrics.duplicateCharges,
      lostBillings: metrics.lostBillings,
      unsettledBillings: metrics.unsettledBillings,
      overCapCents: metrics.overCapCents,
      repeatedDeclines: metrics.repeatedDeclines,
      deadLettered: metrics.deadLettered,
      eventsCharged: metrics.eventsCharged,
      eventsDeclined: metrics.eventsDeclined,
      telemetry: { outcomes: telemetry?.outcomes ?? {}, duplicatesPrevented: telemetry?.duplicatesPrevented ?? {} },
      ...(scaleIns ? { scaleIns } : {}),
      ...(accountAudit ? { accountAudit } : {}),
      ...(faultHits ? { faultHits } : {}),
      ...(timing ? { timing } : {}),
      wallMs: metrics.wallMs,
    })),
    ...(result.scenarios ? { scenarios: scenariosToJson(result.scenarios) } : {}),
  };
}
