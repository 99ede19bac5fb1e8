// The contender's fleet: R replicas of its consumer, each with the context a deployed replica would have (the
// consumer's queue rights only, the harness's Stripe settings, the shared database and clock, the contender's own
// receiver settings and meter provider), the fault hooks, and the clock moved on at each kill.
import type { PGlite } from "@electric-sql/pglite";
import { builtInFlows } from "../../runtime/operator/index.js";
import { deliveryBudgetMs } from "../../tuning/index.js";
import type { AdjustableClock } from "../../sandbox/index.js";
import type { ArmedFaults } from "./contender-faults.js";
import { consumerRule, contenderQueue, sandboxStripeKey, type ContenderSandbox } from "./contender-sandbox.js";
import type { Contender } from "./contenders.js";
import type { FaultPlan } from "../faults/faults.js";
import { ReplicaFleet } from "./replica-fleet.js";
import type { HarnessSettings } from "../run/settings.js";

export interface ContenderFleetOptions {
  contender: Contender;
  settings: HarnessSettings;
  plan: FaultPlan;
  replicas: number;
  sandbox: Pick<ContenderSandbox, "servicebus" | "stripe" | "telemetry">;
  pglite: PGlite;
  clock: AdjustableClock;
  faults: ArmedFaults;
  /** Logs a line of the contender's (the caller names the contender). */
  log(line: string): void;
  /** A degraded scenario's additions (scaled durations, the vault, the database behind its proxy). */
  extraContext?: Record<string, unknown>;
}

export async function createContenderFleet(options: ContenderFleetOptions): Promise<ReplicaFleet> {
  const { contender, settings, plan, sandbox, clock, faults, log } = options;
  const contenderContext = contender.contextFor?.(settings);
  const restartAdvanceMs = restartAdvance(contender, settings, contenderContext?.leaseMs);
  const { startConsumer } = await contender.load();
  return new ReplicaFleet({
    start: startConsumer,
    context: {
      serviceBus: { connectionString: sandbox.servicebus.connectionStringFor(consumerRule), queueName: contenderQueue },
      stripe: {
        apiKey: sandboxStripeKey,
        apiBase: sandbox.stripe.apiBase,
        timeoutMs: settings.stripeTimeoutMs,
        maxNetworkRetries: settings.stripeMaxNetworkRetries,
      },
      pglite: options.pglite,
      clock,
      ...(plan.periodCapCents !== undefined ? { periodCapCents: plan.periodCapCents } : {}),
      maxConcurrentCalls: settings.maxConcurrentCalls,
      retryPolicy: settings.retryPolicy,
      ...contenderContext,
      ...options.extraContext,
      meterProvider: sandbox.telemetry.meterProvider,
      log,
    },
    replicas: options.replicas,
    shouldKill: faults.shouldKill,
    shouldScaleIn: faults.shouldScaleIn,
    gracePeriodMs: settings.scaleInGracePeriodMs,
    closeBoundMs: settings.killCloseBoundMs,
    onKill: () => clock.advance(restartAdvanceMs),
    log,
  });
}

/**
 * How far the clock moves at a kill: a replacement replica comes up after the restart delay, and by then the dead
 * replica's guard leases have lapsed (the consumer sizes them as one delivery budget per Stripe call its flow may
 * make: 23 for an invoice, unless the contender's context hands it a shorter lease).
 */
function restartAdvance(contender: Contender, settings: HarnessSettings, leaseMs: number | undefined): number {
  return Math.max(
    settings.restartDelayMs,
    leaseMs ??
      (builtInFlows[contender.flow]?.calls ?? 1) * deliveryBudgetMs({ stripe: { timeoutMs: settings.stripeTimeoutMs, maxNetworkRetries: settings.stripeMaxNetworkRetries } }),
  );
}
