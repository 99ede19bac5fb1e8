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
