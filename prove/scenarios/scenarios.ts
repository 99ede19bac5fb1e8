// The degraded scenarios (issue 21): not a fault per event, but a dependency degraded for a window of time while the
// fleet works through its backlog. Each runs two contenders over the same workload: `naive-retry` (the seeds'
// pattern: every 429, 5xx, timeout or refused connection is one of the event's attempts) and the generated consumer.
//
// Virtual time. The harness already runs Azure's 60 s lock as 2.5 s, so one wall second stands for 24 virtual ones
// (`virtualTimeFactor`). A scenario's windows are given in virtual time and run at 1/24 of it, and the consumers'
// own durations that race against the window are scaled by the same factor (scenario-context.ts): the retry
// schedule, the waits' backoff, the breakers' probe backoff, the vault key's lifetime and fetch timeout. NOT scaled:
// the `pg` timeouts (they also bound a replica's start-up statements, which a loaded 2-core machine cannot promise in
// 1-4 s), rate limits (requests per real second: stripe-rate-limit runs in real time), Stripe's and PostgreSQL's own
// latency, the Stripe timeout, the guard's lease and the breakers' failure threshold (a count). Figures are in wall
// seconds, with the virtual equivalent where it means something (prove/README.md, "Degraded scenarios").
import { seededRandom } from "../workload/random.js";

export const virtualTimeFactor = 24;

export const scenarioCatalogue = {
  "stripe-outage": "Stripe answers 503 to every request for 30 minutes (virtual), from 2 minutes in; half the events arrive during it",
  "stripe-rate-limit": "Stripe's account budget is 10 requests/s with a burst of 10 (real time), far below the fleet's concurrency (4 x 8 calls), for the whole run",
  "database-failover": "PostgreSQL refuses connections and resets open ones for 3 minutes (virtual), from 2 minutes in; idle connections cut after 4 minutes (PostgreSQL only)",
  "database-hang":
    "PostgreSQL accepts connections and never answers for 3 minutes (virtual), from 2 minutes in, then every connection is cut (a standby takes over); idle connections cut after 4 minutes (PostgreSQL only)",
  "vault-outage": "the vault's key service answers 503 for 10 minutes, then 429 (throttled) for 10 minutes (virtual), from the fleet's start",
} as const;

export type ScenarioName = keyof typeof scenarioCatalogue;
export const scenarioNames = Object.keys(scenarioCatalogue) as ScenarioName[];

export type DegradedDependency = "stripe" | "database" | "vault";

export interface ScenarioSpec {
  name: ScenarioName;
  dependency: DegradedDependency;
  /** When the degradation begins after the fleet starts, and how long it lasts: virtual ms (0 for the whole run). */
  startsAtVirtualMs: number;
  lastsVirtualMs: number;
  /** Share of the workload's messages sent when the window is half over (the producer keeps producing). */
  sentDuringShare: number;
  /** Needs a PostgreSQL server (the consumers' database behind the fault proxy). */
  needsPostgres: boolean;
  /**
   * The consumers on PostgreSQL when the run has a server (as deployed: the replicas share the Stripe budget through
   * it); without one, on PGlite, where each replica adapts to the budget alone.
   */
  postgresWhenGiven?: boolean;
  /**
   * What the naive contender's pattern (8 attempts, giving up 5 to 11 minutes into a failure) does here: dead-letter
   * valid events (a window past 5 minutes), lose them (a hang that never ends its connections: no timeout, the
   * deliveries are held until the run gives up), hold them until the takeover cuts the connections and bill late (a
   * hang ended by a cut), or nothing the verdict counts (a window shorter than its schedule: it only spends attempts
   * and requests).
   */
  naiveExpected: "deadLettered" | "lostBillings" | "heldUntilCut" | "survives";
  /** The database scenarios: the window ends with every open connection closed (a standby takeover), not answering again. */
  endsWithCut?: boolean;
  /** The database scenarios: connections idle this long are reset, the whole run (Azure's gateway and NAT: 4 min). Virtual ms. */
  idleCutVirtualMs?: number;
  /** For stripe-rate-limit: Stripe's limiter, real time. */
  rateLimit?: { global: { perSecond: number; burst: number } };
}

const minute = 60_000;

export const scenarioSpecs: Record<ScenarioName, ScenarioSpec> = {
  "stripe-outage": { name: "stripe-outage", dependency: "stripe", startsAtVirtualMs: 2 * minute, lastsVirtualMs: 30 * minute, sentDuringShare: 0.5, needsPostgres: false, naiveExpected: "deadLettered" },
  "stripe-rate-limit": {
    name: "stripe-rate-limit",
    dependency: "stripe",
    startsAtVirtualMs: 0,
    lastsVirtualMs: 0,
    sentDuringShare: 0,
    needsPostgres: false,
    postgresWhenGiven: true,
    naiveExpected: "survives",
    rateLimit: { global: { perSecond: 10, burst: 10 } },
  },
  "database-failover": {
    name: "database-failover",
    dependency: "database",
    startsAtVirtualMs: 2 * minute,
    lastsVirtualMs: 3 * minute,
    sentDuringShare: 0.5,
    needsPostgres: true,
    naiveExpected: "survives",
    idleCutVirtualMs: 4 * minute,
  },
  "database-hang": {
    name: "database-hang",
    dependency: "database",
    startsAtVirtualMs: 2 * minute,
    lastsVirtualMs: 3 * minute,
    sentDuringShare: 0.5,
    needsPostgres: true,
    naiveExpected: "heldUntilCut",
    endsWithCut: true,
    idleCutVirtualMs: 4 * minute,
  },
  "vault-outage": { name: "vault-outage", dependency: "vault", startsAtVirtualMs: 0, lastsVirtualMs: 20 * minute, sentDuringShare: 0, needsPostgres: false, naiveExpected: "deadLettered" },
};

export function wallMsOf(virtualMs: number): number {
  return Math.round(virtualMs / virtualTimeFactor);
}

export function parseScenarioNames(list: string): ScenarioName[] {
  const names = list.split(",").map((name) => name.trim()).filter((name) => name.length > 0);
  if (names.length === 1 && names[0] === "all") return [...scenarioNames];
  if (names.length === 1 && names[0] === "none") return [];
  const unknown = names.filter((name) => !(name in scenarioCatalogue));
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(", ")}; known: ${scenarioNames.join(", ")} (or "all", "none")`);
  return [...new Set(names as ScenarioName[])];
}

/** Which of the messages go out when the window is half over: a seeded draw, the same for every contender. */
export function splitSends<T>(messages: readonly T[], spec: ScenarioSpec, seed: number): { first: T[]; during: T[] } {
  if (spec.sentDuringShare <= 0) return { first: [...messages], during: [] };
  const random = seededRandom(seed).fork(`scenario-sends:${spec.name}`);
  const first: T[] = [];
  const during: T[] = [];
  for (const message of messages) (random.chance(spec.sentDuringShare) ? during : first).push(message);
  return { first, during };
}
