// The contract every billing consumer in this repository follows (the scaffolded one, the examples, and the
// proving ground's contenders), so one harness can start any of them, crash them at a step boundary, and count
// what reached Stripe. A consumer module exports `startConsumer: StartConsumer`.
import type { PGlite } from "@electric-sql/pglite";
import type { MeterProvider, TracerProvider } from "@opentelemetry/api";
import type { Clock } from "../core/clock.js";
import type { StepHook } from "../handler/consumer-steps.js";
import type { RetryPolicy } from "../handler/settlement-policy.js";

export interface StripeSettings {
  apiKey: string;
  /** e.g. "http://127.0.0.1:12111" for the sandbox; absent: api.stripe.com */
  apiBase?: string;
  timeoutMs?: number;
  maxNetworkRetries?: number;
}

export interface ConsumerContext {
  serviceBus: { connectionString: string; queueName: string };
  stripe: StripeSettings;
  /** PostgreSQL URL; absent: embedded PGlite (`pglite`, or a data directory of the consumer's choosing). */
  databaseUrl?: string;
  /** The password for `databaseUrl` when it has none: e.g. `entraPassword({ credential })` (DATABASE_AUTH=entra). */
  databasePassword?: string | (() => Promise<string>);
  /** An open embedded database shared by the replicas of one contender (in-process fleets). */
  pglite?: PGlite;
  clock?: Clock;
  /** Per billing period spend cap, for each currency separately in its own minor units; absent: no cap. */
  periodCapCents?: number;
  /** Per billing period caps for named currencies (`{ jpy: 700_000 }`), in their minor units; override `periodCapCents`. */
  periodCaps?: Readonly<Record<string, number>>;
  /** Receiver settings; absent: the consumer's own (from the queue's tuning). */
  maxAutoLockRenewalDurationInMs?: number;
  maxConcurrentCalls?: number;
  /** Backoff of the retries scheduled after an unknown outcome; absent: the consumer's own (settlement-policy.ts). */
  retryPolicy?: Partial<RetryPolicy>;
  /**
   * The guard's lease; absent: the consumer's own (one delivery budget per Stripe call its flow may make). A harness
   * that knows its events need fewer calls (a one-line invoice) may size it for those.
   */
  leaseMs?: number;
  hook?: StepHook;
  log?: (line: string) => void;
  /** Where the consumer's OpenTelemetry metrics and spans go; absent: the global providers (a no-op without an SDK). */
  meterProvider?: MeterProvider;
  tracerProvider?: TracerProvider;
}

export interface RunningConsumer {
  /** Stops receiving, lets in-flight work finish or lapse, closes connections. */
  close(): Promise<void>;
  /**
   * Whether the receive loop turns (a container's liveness probe asks this): `live` false, with the `reason`, when it
   * has not received, finished or reached the broker for longer than the queue's lock allows, or a message is stuck.
   * Optional: a consumer that keeps its own receiver may not say.
   */
  liveness?(): { live: boolean; lastTurnAt: number; stallMs: number; reason?: string };
}

export type StartConsumer = (context: ConsumerContext) => Promise<RunningConsumer>;
