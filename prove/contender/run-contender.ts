// One contender, start to finish: a fresh Service Bus emulator, Stripe emulator and PGlite, the workload sent,
// the plan's faults armed, R replicas until the queue settles, the 25-hours-later phase, the operator's reconciler
// (generated consumer), then the judgement. Everything it starts, it stops.
import { AdjustableClock } from "../../sandbox/index.js";
import { BoundedCleanup } from "./bounded-cleanup.js";
import { prepareContenderAccount } from "./contender-account.js";
import { armContenderFaults } from "./contender-faults.js";
import { createContenderFleet } from "./contender-fleet.js";
import { drainPhases } from "./contender-phases.js";
import { contenderQueue, sandboxStripeKey, startContenderSandbox, type ContenderSandbox } from "./contender-sandbox.js";
import { verdict } from "../measure/metrics.js";
import type { Contender } from "./contenders.js";
import type { FreshDatabases } from "../databases/fresh-databases.js";
import type { FaultPlan } from "../faults/faults.js";
import { judgeContender } from "./judge-contender.js";
import { sendAll, workloadMessages } from "../workload/producer.js";
import type { ReplicaFleet } from "./replica-fleet.js";
import type { ContenderResult } from "../run/run-types.js";
import type { HarnessSettings } from "../run/settings.js";
import type { Workload } from "../workload/workload.js";
import { pendingRecordCount } from "../measure/observe.js";
import { armScenario, type ArmedScenario, type ScenarioRun } from "../scenarios/scenario-arm.js";
import { splitSends, wallMsOf } from "../scenarios/scenarios.js";
import { ProgressWait } from "./settle-wait.js";
import { StepTimer } from "./step-timer.js";

export interface ContenderRunOptions {
  contender: Contender;
  workload: Workload;
  plan: FaultPlan;
  replicas: number;
  settings: HarnessSettings;
  databases: FreshDatabases;
  /** Share of the contender's work done so far, 0..1 (for a progress bar). */
  onProgress?(done: number): void;
  log?(line: string): void;
  /** A degraded scenario (scenarios.ts) instead of per-event faults alone. */
  scenario?: ScenarioRun;
}

export async function runContender(options: ContenderRunOptions): Promise<ContenderResult> {
  const { contender, workload, plan, settings, replicas } = options;
  const harnessLog = options.log ?? (() => {});
  const log = (line: string) => harnessLog(`${contender.name}: ${line}`);
  const clock = new AdjustableClock();
  const setupStarted = Date.now();
  const cleanup = new BoundedCleanup();
  const timer = new StepTimer();
  let fleet: ReplicaFleet | undefined;
  try {
    const sandbox = await startContenderSandbox(settings, options.databases, clock, cleanup);
    const account = await prepareContenderAccount(contender, workload, sandbox.stripe, clock);
    const scenario = options.scenario
      ? await armScenario({ run: options.scenario, kind: contender.kind, label: contender.name, sandbox, workload, clock, cleanup })
      : undefined;
    const armed = armContenderFaults({ plan, settings, seed: workload.seed, sandbox, account });
    const faults = scenario ? { ...armed, slowCallsRunning: () => armed.slowCallsRunning() || scenario.busy() } : armed;
    const sender = sandbox.client.createSender(contenderQueue);
    const initial = workloadMessages(workload, account.directory, account.sendBodyOf);
    const sends = scenario ? splitSends(initial, scenario.spec, workload.seed) : { first: initial, during: [] };
    await sendAll(sender, sends.first);
    const pglite = await sandbox.database;
    log(`ready in ${Date.now() - setupStarted} ms (${workload.stripeCustomerIds.length} customers, ${sends.first.length} messages sent)`);
    fleet = await createContenderFleet({ contender, settings, plan, replicas, sandbox, pglite, clock, faults, log, ...(scenario ? { extraContext: scenario.context } : {}) });
    timer.mark("setup");

    const started = Date.now();
    let progress = 0;
    const report = (done: number) => {
      progress = Math.max(progress, Math.min(1, done));
      options.onProgress?.(progress);
    };
    await fleet.start();
    scenario?.begin(() => sendAll(sender, sends.during));
    const records = scenario?.database?.reader ?? pglite;
    // A scenario's contender is waited for while its backlog shrinks after the recovery (settle-wait.ts), not a fixed time.
    const wait = scenario
      ? new ProgressWait({
          recoveredAt: () => scenario.recoveredAt(),
          plannedRecoveryAt: started + wallMsOf(scenario.spec.startsAtVirtualMs + scenario.spec.lastsVirtualMs),
          pendingRecords: () => pendingRecordCount(records),
        })
      : undefined;
    const phases = { contender, workload, plan, settings, clock, sandbox, sender, pglite, account, fleet, faults };
    const giveUp = wait ? { giveUp: (pending: number, now: number) => wait.giveUp(pending, now) } : {};
    const outcome = await drainPhases({ ...phases, ...giveUp, initialMessages: initial.length, started, report, log });
    // The queue had been empty for the quiet period when it was called settled.
    const drainedAt = Date.now() - settings.quietMs;
    timer.mark("drain");
    let error = outcome === "timed-out" ? (wait?.describeStop() ?? `did not settle within ${Math.round(settings.contenderTimeoutMs / 1000)} s`) : undefined;
    await fleet.stop();
    timer.mark("stop");
    if (fleet.startErrors.length > 0) error = [error, `replica start failed: ${fleet.startErrors[0]}`].filter(Boolean).join("; ");
    // What an operator runs once the fleet stopped (the generated consumer's reconciler, as from cron).
    await contender.afterRun?.({
      database: pglite,
      ...(scenario?.database ? { databaseUrl: scenario.database.directUrl } : {}),
      clock,
      stripe: { apiKey: sandboxStripeKey, apiBase: sandbox.stripe.apiBase },
      ...(plan.periodCapCents !== undefined ? { periodCapCents: plan.periodCapCents } : {}),
      meterProvider: sandbox.telemetry.meterProvider,
      log,
    });
    timer.mark("reconcile");
    report(1);
    // The last card attempt the run made, read before the judge's audit seeds its dispute fixture's charges.
    const lastAttemptAt = lastCardAttemptAt(sandbox.stripe);
    const judgement = await judgeContender({ contender, workload, plan, sandbox, records, account, fleet, wallMs: Date.now() - started, error, settled: outcome === "settled", log });
    timer.mark("judge");
    const judged = { ...judgement, faultHits: { ...armed.hits }, timing: timer.times };
    return scenario ? await withScenario(judged, scenario, { drainedAt, replicas, lastAttemptAt }, sandbox) : judged;
  } finally {
    await fleet?.stop();
    await cleanup.run((label, outcome) => log(`cleanup of the ${label}: ${outcome}`));
    timer.mark("cleanup");
    log(`timing: ${timer.describe()}`);
  }
}

/** A scenario's figures on the contender's row, and its verdict: there, a valid event dead-lettered is a failure too. */
async function withScenario(
  judged: ContenderResult,
  scenario: ArmedScenario,
  run: { drainedAt: number; replicas: number; lastAttemptAt: number | undefined },
  { telemetry }: Pick<ContenderSandbox, "telemetry">,
): Promise<ContenderResult> {
  const paused = (await telemetry.summary()).pausedSeconds?.[scenario.spec.dependency];
  const figures = scenario.figures(run.drainedAt, run.replicas, judged.kind === "generated" ? (paused ?? 0) : paused, run.lastAttemptAt);
  return { ...judged, scenario: figures, verdict: verdict(judged.metrics, { validDeadLetteredFails: true }) };
}

/** When the last card attempt reached Stripe (ms, Stripe's whole-second `created`), if any did. */
function lastCardAttemptAt(stripe: ContenderSandbox["stripe"]): number | undefined {
  const created = stripe.ledger.charges().map((charge) => charge.created * 1000);
  return created.length > 0 ? Math.max(...created) : undefined;
}
