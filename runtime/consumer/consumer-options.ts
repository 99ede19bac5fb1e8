// What `startBillingConsumer` takes: the run contract's context (consumer-contract.ts) plus the consumer's own options.
import type { QueueTuning } from "../../tuning/index.js";
import type { BillingEventDefinition } from "../flows/billing-event.js";
import type { ConsumerContext } from "./consumer-contract.js";
import type { FlowAdapter } from "../flows/flow-adapter.js";
import type { GuardStore } from "../guard/guard-store.js";
import type { PgTimeouts } from "../guard/pg-client.js";
import type { PaymentIntentRequest } from "../stripe/payment-intent-params.js";
import type { BillingTelemetry } from "../telemetry/billing-telemetry.js";
import type { UsageEvent } from "../event/usage-event.js";
import type { VaultKeyProvider } from "../stripe/vault/key-provider.js";

/** `E`: the team's event (default UsageEvent); `R`: the flow's request (default a PaymentIntent's params). */
export interface BillingConsumerOptions<E = UsageEvent, R = PaymentIntentRequest> extends ConsumerContext {
  /**
   * The queue's tuning (infra `tuneQueue`): lock renewal deadline, Stripe timeout and retries. With its
   * `lockDurationMs`, settings overridden in the context are checked against the queue's lock at start; with its
   * `budget`, the delivery budget counts the queue's processing, margin and 3-D Secure wait too.
   */
  tuning?: Pick<QueueTuning, "consumer"> & Partial<Pick<QueueTuning, "lockDurationMs" | "budget">>;
  /** The stable key's scope; default "billing". */
  scope?: string;
  /** Attempts before an unknown outcome is dead-lettered; default 8. */
  maxAttempts?: number;
  /** Per-period Stripe keys; default: `stripe.apiKey` for every period (EnvironmentKeyProvider). */
  keyProvider?: VaultKeyProvider;
  /** A period's expected total, sizing its vault key's cap; default `periodCapCents`. */
  expectedPeriodTotalCents?: number | ((billingPeriod: string) => number);
  /**
   * An open guard (`Guard.open`), or a store decorated around one (decorate-store.ts), to share: not closed by the
   * consumer. Default: a guard opened from the context's database settings, closed with the consumer.
   */
  guard?: GuardStore<never>;
  /** The Stripe flow (`paymentIntentFlow`, `chargeFlow`, `invoiceFlow`, `meterEventFlow`); default payment-intent. */
  flow?: FlowAdapter<R>;
  /** The team's events: a schema and a function from event to identity, spend and the flow's request; default UsageEvent. */
  event?: BillingEventDefinition<E, R>;
  /** Embedded database directory when neither `databaseUrl` nor `pglite` is given. */
  dataDir?: string;
  /**
   * The guard's records in memory, asked for by name: tests and demos only (a restart forgets every claim). Without a
   * database (`databaseUrl`, `pglite`, `dataDir`) or this, the consumer refuses to start (ConfigurationError).
   */
  inMemory?: boolean;
  /** The guard's lease; default the delivery budget (Stripe worst case + processing + margin), twice that when messages may wait for a Stripe slot. */
  leaseMs?: number;
  /** Lease owner id; default host/pid/random. */
  owner?: string;
  /**
   * Stripe calls at a time (each with its claim just before it); default `maxConcurrentCalls`. Set below
   * `maxConcurrentCalls` (at least half of it), the other messages in flight record outcomes and settle while the
   * slots call Stripe, so the guard's round trips overlap Stripe's latency instead of adding to it. A message may
   * then wait for a slot up to one delivery budget, which the lock renewal must cover as well.
   */
  maxConcurrentStripeCalls?: number;
  /**
   * How long `close()` waits for in-flight messages to settle (a step frozen by a hook is not waited for); default
   * the delivery budget (twice it when messages may wait for a Stripe slot): a message in flight at SIGTERM settles
   * within it, and the platform's grace period (Container Apps' terminationGracePeriodSeconds) is set to cover it.
   */
  closeTimeoutMs?: number;
  /** Metrics and traces (runtime/telemetry); default: from the context's providers, else the global ones (a no-op without an SDK). */
  telemetry?: BillingTelemetry;
  /** Peek the queue before subscribing, throwing ConsumerStartError when it is missing or unreachable; default true. */
  checkQueueAtStart?: boolean;
  /**
   * Connect to Stripe's origin (`stripe.apiBase`, the vault's proxy with vault keys) within 5 s before subscribing,
   * throwing ConsumerStartError naming the URL when it cannot; default env STRIPE_START_CHECK (`off` skips it), else true.
   */
  checkStripeAtStart?: boolean;
  /** Called when Stripe refuses the key (401/403) and the consumer pauses intake: an alert hook. */
  onConfigurationFault?: (detail: string) => void;
  /**
   * The Stripe account's budget for the whole fleet, requests per second (a ceiling: the governor adapts below it to
   * 429s); default env STRIPE_REQUESTS_PER_SECOND (the infra stack's Stripe budget), else none (adapt to 429s only).
   */
  stripeRequestsPerSecond?: number;
  /** The guard's `pg` pool timeouts and keepalives; default `pgTimeouts` (runtime/guard/pg-client.ts). */
  databaseTimeouts?: PgTimeouts;
  /** false: each replica governs its Stripe budget alone instead of sharing it through PostgreSQL; default shared. */
  fleetBudget?: false;
  /** The breakers per dependency (README, "Degraded dependencies"); defaults 5 failures, probes 1 s doubling to 10 s. */
  breakers?: { failureThreshold?: number; firstProbeDelayMs?: number; maxProbeDelayMs?: number };
  /**
   * How often an idle consumer peeks the queue to prove its receive loop still reaches the broker (its liveness);
   * default RECEIVE_PROBE_EVERY_MS (tuning). The stall threshold follows from it and the queue's lock.
   */
  receiveProbeEveryMs?: number;
  /**
   * A starting consumer waits for a PostgreSQL it cannot reach (refused, reset, timed out: a failover, an outage) for
   * as long as it takes, receiving nothing, until the database answers or `signal` stops it; with this set it gives
   * up after that long (ms) with the last error instead. A wrong DATABASE_URL (unknown host, refused login, no such
   * database) is a ConsumerStartError at once either way.
   */
  databaseStartWaitMs?: number;
  /** Called with true when the start begins waiting for its database and false when it answers: report not ready meanwhile. */
  onDatabaseWait?: (waiting: boolean) => void;
  /** Stops a start still waiting for its database (SIGTERM): the start rejects with StartStoppedSignal, nothing left open. */
  signal?: AbortSignal;
  /** Probe backoff while paused on a refused key; default 30 s doubling to 5 min. */
  configurationFaultProbe?: { firstProbeDelayMs?: number; maxProbeDelayMs?: number };
}
