// Draining a running fleet's queue, phase by phase: the workload until the queue settles, then (with the
// `dlq-resubmit` or `nightly-resend` fault) 25 hours later, past Stripe's key window, the operators' re-sends until it
// settles again. Progress is the share of each phase's messages no longer pending; the first phase counts for 90%
// when a second follows.
import type { PGlite } from "@electric-sql/pglite";
import type { ServiceBusSender } from "@azure/service-bus";
import type { AdjustableClock } from "../../sandbox/index.js";
import type { ContenderAccount } from "./contender-account.js";
import type { ArmedFaults } from "./contender-faults.js";
import { contenderQueue, type ContenderSandbox } from "./contender-sandbox.js";
import type { Contender } from "./contenders.js";
import type { FaultPlan } from "../faults/faults.js";
import { recordedEvents } from "../measure/observe.js";
import { resendUnrecorded, resubmitDeadLetters } from "../workload/producer.js";
import { waitUntilSettled, type SettleOutcome } from "./queue-watch.js";
import { seededRandom } from "../workload/random.js";
import type { ReplicaFleet } from "./replica-fleet.js";
import type { HarnessSettings } from "../run/settings.js";
import type { Workload } from "../workload/workload.js";

const pendingLogEveryMs = 5_000;

export interface ContenderPhases {
  contender: Contender;
  workload: Workload;
  plan: FaultPlan;
  settings: HarnessSettings;
  clock: AdjustableClock;
  sandbox: Pick<ContenderSandbox, "servicebus" | "client">;
  sender: ServiceBusSender;
  pglite: PGlite;
  account: ContenderAccount;
  fleet: ReplicaFleet;
  faults: ArmedFaults;
  /** Messages the workload sent before the fleet started. */
  initialMessages: number;
  /** When the fleet started (Date.now()): the contender's timeout counts from here. */
  started: number;
  report(done: number): void;
  /** Decides when to give up on an unsettled queue instead of the contender's timeout (degraded scenarios). */
  giveUp?(pending: number, now: number): Promise<boolean>;
  /** Logs a line of the contender's (the caller names the contender). */
  log(line: string): void;
}

export async function drainPhases(run: ContenderPhases): Promise<SettleOutcome> {
  const { plan, settings, sandbox, log } = run;
  const deadline = run.started + settings.contenderTimeoutMs;
  let lastPendingLog = Date.now();
  const settle = (phaseStart: number, phaseShare: number, phaseMessages: number) =>
    waitUntilSettled({
      counts: () => sandbox.servicebus.counts(contenderQueue),
      busyOutsideQueue: () => run.faults.slowCallsRunning() || run.fleet.busy,
      quietMs: settings.quietMs,
      deadline,
      ...(run.giveUp ? { giveUp: run.giveUp } : {}),
      onPending: (pending) => {
        run.report(phaseStart + phaseShare * (1 - Math.min(1, pending / Math.max(1, phaseMessages))));
        if (Date.now() - lastPendingLog >= pendingLogEveryMs) {
          lastPendingLog = Date.now();
          log(`${pending} message(s) active, locked or scheduled after ${((Date.now() - run.started) / 1000).toFixed(0)} s`);
        }
      },
    });
  const twoPhases = plan.resubmitDeadLetters || plan.resendUnrecorded;
  const outcome = await settle(0, twoPhases ? 0.9 : 1, run.initialMessages);
  if (outcome !== "settled" || !twoPhases) return outcome;
  const resent = await sendAgainLater(run);
  log(`${resent} message(s) sent again 25 h later`);
  return settle(0.9, 0.1, resent);
}

/** 25 hours later: the dead-letter queue resubmitted and the unrecorded events re-sent, with new messageIds. */
async function sendAgainLater(run: ContenderPhases): Promise<number> {
  const { contender, workload, plan, sandbox } = run;
  run.clock.advance(run.settings.keyWindowJumpMs);
  const ids = seededRandom(workload.seed).fork(`late-ids:${contender.name}`);
  const newMessageId = () => `late-${ids.int(0, 2 ** 30).toString(36)}-${ids.int(0, 2 ** 30).toString(36)}`;
  let resent = 0;
  if (plan.resubmitDeadLetters) {
    const toMove = new Set(sandbox.servicebus.inspect(contenderQueue).deadLettered.map((message) => message.sequenceNumber));
    const moved = await resubmitDeadLetters({ client: sandbox.client, queue: contenderQueue, toMove, newMessageId });
    run.faults.hit("dlq-resubmit", moved);
    resent += moved;
  }
  if (plan.resendUnrecorded) {
    const { recorded } = await recordedEvents(run.pglite, workload, contender.flow);
    const sent = await resendUnrecorded({ sender: run.sender, workload, recorded, bodyOf: run.account.resendBodyOf, newMessageId });
    run.faults.hit("nightly-resend", sent);
    resent += sent;
  }
  return resent;
}
