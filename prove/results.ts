// The results of a proving-ground run, and their machine-readable form (the `--json` shape of issue 6).
import { runScale } from "./run-scale.js";
import type { ProvingGroundJson, ProvingGroundResult } from "./run-types.js";
import { scenariosPassed, scenariosToJson } from "./scenario-report.js";

// The types live in run-types.ts (imports nothing of the run); named here too for the importers of this module.
export type { ContenderJson, ContenderKind, ContenderResult, ProvingGroundJson, ProvingGroundResult } from "./run-types.js";

/** The run passes when every generated contender run passes; broken examples failing is what they are there to show. */
export function runPassed(result: Pick<ProvingGroundResult, "contenders" | "scenarios">): boolean {
  return result.contenders.every((contender) => contender.kind !== "generated" || contender.verdict.startsWith("PASS")) && scenariosPassed(result.scenarios ?? []);
}

/**
 * Said wherever the verdict is printed: a seed fixes the workload and the fault schedule, but which deliveries meet a
 * fault depends on timing (lock expiry, replica kills, the machine's load), so counts differ between runs of one seed.
 */
export const countsVaryNote =
  "Same seed, same verdict: which contenders pass and fail is reproducible, the counts are not (timing decides which messages meet a fault; duplicates vary by tens between runs).";

/** The run's verdict in one line (the CLI's last line, the HTML report's headline): what it proved, and that failing broken examples are expected. */
export function describeVerdict(result: ProvingGroundResult): string {
  const passed = runPassed(result);
  const examples = result.contenders.filter((contender) => contender.kind === "example");
  const failedAsExpected = examples.filter((contender) => contender.verdict.startsWith("FAIL")).length;
  const generated = result.contenders.filter((contender) => contender.kind === "generated");
  const scenarioGenerated = (result.scenarios ?? []).flatMap((outcome) => outcome.contenders).filter((contender) => contender.kind === "generated");
  const parts = [
    examples.length > 0 ? `${failedAsExpected} of ${examples.length} broken example(s) failed, as they are expected to` : undefined,
    generated.length > 0 ? `the generated consumer ${passed ? "passed" : "FAILED"}` : result.scenarios ? undefined : "no generated consumer in this run",
    scenarioGenerated.length > 0
      ? `degraded scenarios: the generated consumer passed ${scenarioGenerated.filter((c) => c.verdict.startsWith("PASS")).length} of ${scenarioGenerated.length}`
      : undefined,
  ].filter(Boolean);
  return `${passed ? "PASSED" : "FAILED"}: ${parts.join("; ")}`;
}

export function toJson(result: ProvingGroundResult): ProvingGroundJson {
  return {
    seed: result.seed,
    events: result.events,
    scale: runScale(result),
    faults: result.faults,
    passed: runPassed(result),
    contenders: result.contenders.map(({ name, kind, flow, metrics, verdict, expectedFailure, scaleIns, telemetry, accountAudit }) => ({
      name,
      kind,
      flow,
      verdict,
      ...(expectedFailure === undefined ? {} : { expectedFailure }),
      malformed: { events: metrics.malformedEvents, deadLettered: metrics.malformedDeadLettered, charged: metrics.malformedCharged },
      events: metrics.events,
      paymentIntents: metrics.paymentIntents,
      duplicateCharges: metrics.duplicateCharges,
      lostBillings: metrics.lostBillings,
      overCapCents: metrics.overCapCents,
      repeatedDeclines: metrics.repeatedDeclines,
      deadLettered: metrics.deadLettered,
      eventsCharged: metrics.eventsCharged,
      eventsDeclined: metrics.eventsDeclined,
      telemetry: { outcomes: telemetry?.outcomes ?? {}, duplicatesPrevented: telemetry?.duplicatesPrevented ?? {} },
      ...(scaleIns ? { scaleIns } : {}),
      ...(accountAudit ? { accountAudit } : {}),
      wallMs: metrics.wallMs,
    })),
    ...(result.scenarios ? { scenarios: scenariosToJson(result.scenarios) } : {}),
  };
}
