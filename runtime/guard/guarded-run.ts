// The guard primitive: any Stripe work behind a claim that is durable before Stripe is called, with the outcome
// recorded before the caller settles anything. In the spirit of Powertools' makeIdempotent, made safe for money:
// identity from fields the caller names, a fingerprint of the rest (same identity, other parameters: mismatch), an
// optional spend reservation, a lease with an AbortSignal when it lapses, and recovery points (named steps that
// persist the Stripe object id they produced and resolve from it on replay). An unknown outcome never deletes the
// record: it stays pending and reserved for the retry or the reconciler. A refusal before Stripe did anything, on
// a first attempt with no recovery point, removes it (`GuardStore.forget`); with history, it goes to recovery too. Outcomes are values; nothing here throws
// except the caller's own phase hooks.
import { createHash, randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { canonicalDocument, canonicalJson } from "../canonical-json.js";
import { stableKey } from "../stable-key.js";
import { describeError, errorMessage } from "../describe-error.js";
import { GuardInputError, InvalidEventError, LeaseLapsedError } from "../errors.js";
import type { GuardStore, Spend, StoreClaim, StoreLease } from "./guard-store.js";
import { DependencyUnavailableError, type DependencyFault } from "../resilience/dependency-fault.js";

export type { Spend } from "./guard-store.js";

/** What to guard: who the record is, what it does, what it spends. */
export interface GuardRunInput {
  /** Namespaces the identity (and prefixes the derived key): 1-64 letters, digits, `.`, `_`, `-`. */
  scope: string;
  /** The record's identity: the fields the caller names (strings and safe integers), e.g. `{ customerId, billingPeriod }`. */
  key: Readonly<Record<string, string | number>>;
  /** Everything else the work depends on: fingerprinted and stored, never part of the identity. */
  payload: Readonly<Record<string, unknown>>;
  /** Reserved against the (period, currency) cap when the record is created; given back on a decline. */
  spend?: Spend;
  /** The flow's name ("payment-intent", "invoice", ...): part of the fingerprint. */
  flow: string;
  /** The Stripe idempotency key; default `stableKey(key, { scope })`. Step keys derive from it. */
  idempotencyKey?: string;
  /** Lease owner; default host/pid/random of this process. */
  owner?: string;
  /** This run's lease; default the store's. */
  leaseMs?: number;
}

/** What the work gets. */
export interface GuardContext {
  /** The record's key: for a single-call flow, the call's idempotency key. */
  idempotencyKey: string;
  /** Aborted when the lease lapses: stop before starting another Stripe call. */
  signal: AbortSignal;
  /** When the lease lapses: a wait (for a rate limit's next token) must end before it, with room for the call. */
  leaseUntil?: Date;
  /** 1 on the first claim, n on the n-th (a takeover after an unknown outcome). */
  attempt: number;
  /** When the record was first claimed: past Stripe's 24 h key window, look up instead of trusting the key. */
  createdAt: Date;
  /** The recovery points recorded so far (step name -> Stripe object id). */
  steps: Readonly<Record<string, string>>;
  /** A step's own idempotency key: `<record key>:<step>` (at most 132 + 1 + 64 characters). */
  stepKey(step: string): string;
  /**
   * A recovery point: runs `call(stepKey)` unless an earlier attempt recorded this step, persists the Stripe object
   * id it returns before resolving, and resolves with it (on replay: the stored id, without calling Stripe).
   */
  step(name: string, call: (stepKey: string) => Promise<string>): Promise<string>;
}

/** What the work answers when Stripe answered. */
export type GuardWorkResult =
  /** `replayed`: Stripe answered from its idempotency cache (telemetry counts a duplicate it prevented). */
  | { status: "done"; objectId: string; result?: Record<string, unknown>; replayed?: boolean }
  | { status: "declined"; reason: string; objectId?: string; replayed?: boolean };

/** A thrown error, classified by the flow (flows/*.ts); unclassified errors are unknown. */
export type GuardErrorClass =
  | { kind: "declined"; reason: string; objectId?: string }
  /** Stripe already has it (e.g. a meter event's duplicate identifier): the work is done. */
  | { kind: "done"; objectId: string }
  | { kind: "invalid"; reason: string; detail: string }
  | { kind: "cap-exceeded"; reason: string }
  /** `nothingSent`: a dependency refused before any request left (a breaker open, a wait past the lease). */
  | { kind: "unknown"; detail: string; fault?: DependencyFault; nothingSent?: boolean };

export type GuardOutcome =
  /** Done now and recorded. */
  | { kind: "done"; objectId: string; idempotencyKey: string }
  /** Recorded done by an earlier run: nothing was called. */
  | { kind: "already-done"; objectId: string | null; idempotencyKey: string }
  /** Declined now (recorded, reservation given back) or earlier (`previously`): never retry it. */
  | { kind: "declined"; reason: string; previously: boolean; idempotencyKey: string }
  /** Another holder's lease is live: try again after `retryAfterMs`. */
  | { kind: "busy"; retryAfterMs: number; idempotencyKey: string }
  /** Same identity, other payload, spend or key: refused. */
  | { kind: "mismatch"; reason: string; idempotencyKey: string }
  /** Our cap (or the vault key's) refuses the spend. */
  | { kind: "cap-exceeded"; reason: string; idempotencyKey?: string }
  /** The input, or the request as Stripe judged it, is wrong: no retry can fix it. */
  | { kind: "invalid"; reason: string; detail: string; idempotencyKey?: string }
  /**
   * Stripe may or may not have done it: the record stays pending and reserved; retry with the same key. `fault`: a
   * dependency was down or throttling (resilience/dependency-fault.ts), which is no attempt of the event's.
   */
  | { kind: "unknown"; detail: string; idempotencyKey?: string; fault?: DependencyFault };

/** Phase boundaries the caller may observe (crash tests, step hooks). A hook that throws ends the run with its error. */
export interface GuardPhaseHooks {
  afterClaim?(): Promise<void> | void;
  afterWork?(): Promise<void> | void;
  afterRecord?(): Promise<void> | void;
}

export interface GuardRunOptions {
  /** Classifies what the work throws; default: everything is unknown. */
  classify?(error: unknown): GuardErrorClass;
  hooks?: GuardPhaseHooks;
  /** For `now` when arming the lease's abort timer; default Date.now. */
  now?(): number;
}

export type GuardWork = (context: GuardContext) => Promise<GuardWorkResult>;

const scopePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const stepPattern = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const maxRecordKeyLength = 2048;
export const defaultOwner = `${hostname()}/${process.pid}/${randomBytes(4).toString("hex")}`;

/** The identity and fingerprint of a run, or what is wrong with its input. */
export function identify(input: GuardRunInput): { recordKey: string; idempotencyKey: string; fingerprint: string } {
  if (input === null || typeof input !== "object") throw new GuardInputError("guard input must be an object");
  if (typeof input.scope !== "string" || !scopePattern.test(input.scope)) {
    throw new GuardInputError(`scope ${JSON.stringify(input.scope)} must be 1-64 letters, digits, ".", "_" or "-"`);
  }
  if (typeof input.flow !== "string" || !scopePattern.test(input.flow)) {
    throw new GuardInputError(`flow ${JSON.stringify(input.flow)} must be 1-64 letters, digits, ".", "_" or "-"`);
  }
  if (input.key === null || typeof input.key !== "object" || Object.keys(input.key).length === 0) {
    throw new GuardInputError("key must name at least one identity field");
  }
  for (const [field, value] of Object.entries(input.key)) {
    const ok = (typeof value === "string" && value.length > 0 && value.length <= 255) || (typeof value === "number" && Number.isSafeInteger(value));
    if (!ok) throw new GuardInputError(`key.${field} must be a non-empty string (<= 255) or a safe integer, got ${JSON.stringify(value)}`);
  }
  if (input.payload === null || typeof input.payload !== "object" || Array.isArray(input.payload)) {
    throw new GuardInputError("payload must be an object (the request the work sends)");
  }
  if (input.spend !== undefined) checkSpend(input.spend);
  let recordKey: string;
  let idempotencyKey: string;
  try {
    recordKey = canonicalJson(input.key);
    idempotencyKey = input.idempotencyKey ?? stableKey(input.key, { scope: input.scope });
  } catch (error) {
    throw new GuardInputError(errorMessage(error));
  }
  if (recordKey.length > maxRecordKeyLength) throw new GuardInputError(`key is ${recordKey.length} characters as JSON; at most ${maxRecordKeyLength}`);
  if (typeof idempotencyKey !== "string" || idempotencyKey.length === 0 || idempotencyKey.length > 190) {
    // 255 is Stripe's limit; step keys append ":<step>" (up to 65 characters).
    throw new GuardInputError(`idempotencyKey must be 1-190 characters (step keys add up to 65), got ${String(idempotencyKey?.length)}`);
  }
  let fingerprint: string;
  try {
    const canonical = canonicalDocument({ flow: input.flow, idempotencyKey, payload: input.payload, spend: input.spend ?? null });
    fingerprint = createHash("sha256").update(canonical, "utf8").digest("hex");
  } catch (error) {
    throw new GuardInputError(`payload cannot be fingerprinted: ${errorMessage(error)}`);
  }
  return { recordKey, idempotencyKey, fingerprint };
}

function checkSpend(spend: Spend): void {
  if (spend === null || typeof spend !== "object") throw new GuardInputError("spend must be { period, currency, amount }");
  if (typeof spend.period !== "string" || spend.period.length === 0 || spend.period.length > 64) {
    throw new GuardInputError(`spend.period must be 1-64 characters, got ${JSON.stringify(spend.period)}`);
  }
  if (typeof spend.currency !== "string" || !/^[a-z]{3}$/.test(spend.currency)) {
    throw new GuardInputError(`spend.currency must be a lower-case ISO 4217 code such as "usd", got ${JSON.stringify(spend.currency)}`);
  }
  if (!Number.isSafeInteger(spend.amount) || spend.amount <= 0) {
    throw new GuardInputError(`spend.amount must be a positive integer in minor units, got ${JSON.stringify(spend.amount)}`);
  }
}

/** A step's idempotency key, derived from the record's key and the step's name. */
export function stepIdempotencyKey(idempotencyKey: string, step: string): string {
  if (typeof step !== "string" || !stepPattern.test(step)) {
    throw new GuardInputError(`step name ${JSON.stringify(step)} must be 1-64 lower-case letters, digits, "_" or "-"`);
  }
  return `${idempotencyKey}:${step}`;
}

/** Runs `work` behind `store`'s claim and records its outcome. See the file comment. */
export async function runGuarded<L extends StoreLease>(
  store: GuardStore<L>,
  input: GuardRunInput,
  work: GuardWork,
  options: GuardRunOptions = {},
): Promise<GuardOutcome> {
  let identity: ReturnType<typeof identify>;
  try {
    identity = identify(input);
  } catch (error) {
    return { kind: "invalid", reason: "InvalidGuardInput", detail: describeError(error) };
  }
  const claim = await claimRecord(store, input, identity);
  if (claim.status !== "claimed") return claim.outcome;
  const { idempotencyKey } = identity;
  const { lease } = claim;
  const lapse = new AbortController();
  const now = options.now ?? Date.now;
  const timer = setTimeout(() => lapse.abort(new LeaseLapsedError(`lease lapsed at ${lease.lockedUntil.toISOString()}`)), Math.max(0, lease.lockedUntil.getTime() - now()));
  timer.unref?.();
  try {
    await options.hooks?.afterClaim?.();
    const context = guardContext(store, claim, idempotencyKey, lapse.signal);
    let answer: GuardWorkResult | GuardErrorClass;
    try {
      answer = await work(context);
    } catch (error) {
      answer = classifyThrown(error, options.classify);
    }
    await options.hooks?.afterWork?.();
    // A first attempt that left no recovery point: a refusal then proves Stripe holds nothing under this record.
    const untouched = claim.attempt === 1 && Object.keys(context.steps).length === 0;
    return await record(store, lease, answer, idempotencyKey, options.hooks, untouched);
  } finally {
    clearTimeout(timer);
  }
}

type ClaimedRecord<L extends StoreLease> = Extract<StoreClaim<L>, { status: "claimed" }>;

/** The claim phase: the store's claim, or the outcome that ends the run without calling the work. */
async function claimRecord<L extends StoreLease>(
  store: GuardStore<L>,
  input: GuardRunInput,
  identity: ReturnType<typeof identify>,
): Promise<ClaimedRecord<L> | { status: "ended"; outcome: GuardOutcome }> {
  const { idempotencyKey } = identity;
  const ended = (outcome: GuardOutcome) => ({ status: "ended" as const, outcome });
  let claim: StoreClaim<L>;
  try {
    claim = await store.claim({
      scope: input.scope,
      key: input.key,
      recordKey: identity.recordKey,
      flow: input.flow,
      idempotencyKey,
      fingerprint: identity.fingerprint,
      payload: input.payload,
      ...(input.spend === undefined ? {} : { spend: input.spend }),
      owner: input.owner ?? defaultOwner,
      ...(input.leaseMs === undefined ? {} : { leaseMs: input.leaseMs }),
    });
  } catch (error) {
    // The store proved the event's own fields invalid: no retry can fix it.
    if (error instanceof InvalidEventError) return ended({ kind: "invalid", reason: "InvalidEvent", detail: error.message, idempotencyKey });
    // Anything else (a database failure, a bug) is no verdict on the event; the claim may or may not be committed:
    // unknown, and the retry meets whichever it is.
    return ended({ kind: "unknown", detail: `guard failed: ${describeError(error)}`, idempotencyKey, ...faultOf(error) });
  }
  switch (claim.status) {
    case "already-done":
      return ended({ kind: "already-done", objectId: claim.objectId, idempotencyKey });
    case "declined":
      return ended({ kind: "declined", reason: claim.reason ?? "declined", previously: true, idempotencyKey });
    case "busy":
      return ended({ kind: "busy", retryAfterMs: claim.retryAfterMs, idempotencyKey });
    case "mismatch":
      return ended({ kind: "mismatch", reason: claim.reason, idempotencyKey });
    case "cap-exceeded":
      return ended({ kind: "cap-exceeded", reason: claim.reason, idempotencyKey });
    case "claimed":
      return claim;
  }
}

/** What the work gets: the claim's facts and its recovery points, each persisted before it resolves. */
function guardContext<L extends StoreLease>(
  store: GuardStore<L>,
  claim: ClaimedRecord<L>,
  idempotencyKey: string,
  signal: AbortSignal,
): GuardContext & { steps: Record<string, string> } {
  const { lease } = claim;
  const steps: Record<string, string> = { ...claim.steps };
  return {
    idempotencyKey,
    signal,
    leaseUntil: lease.lockedUntil,
    attempt: claim.attempt,
    createdAt: claim.createdAt,
    steps,
    stepKey: (name) => stepIdempotencyKey(idempotencyKey, name),
    async step(name, call) {
      const key = stepIdempotencyKey(idempotencyKey, name);
      const stored = steps[name];
      if (stored !== undefined) return stored;
      signal.throwIfAborted();
      const objectId = await call(key);
      if (typeof objectId !== "string" || objectId.length === 0) throw new GuardInputError(`step ${name} must resolve with the Stripe object id`);
      await store.saveStep(lease, name, objectId).catch((error: unknown) => {
        throw new StepNotRecorded(`step ${name} produced ${objectId}, recording it failed: ${describeError(error)}`);
      });
      steps[name] = objectId;
      return objectId;
    },
  };
}

/** A recovery point the store did not take: the Stripe object exists, its retry replays it under the same key. */
class StepNotRecorded extends Error {
  override name = "StepNotRecorded";
}

function classifyThrown(error: unknown, classify: GuardRunOptions["classify"]): GuardErrorClass {
  if (error instanceof LeaseLapsedError || error instanceof StepNotRecorded || (error instanceof DOMException && error.name === "AbortError")) {
    return { kind: "unknown", detail: describeError(error) };
  }
  if (error instanceof GuardInputError) return { kind: "invalid", reason: "InvalidGuardInput", detail: error.message };
  // A dependency's fault (a breaker open, a rate limit past the lease, Stripe unreachable): what the flow would make
  // of it does not matter; whether anything was sent decides what the guard keeps.
  if (error instanceof DependencyUnavailableError) return { kind: "unknown", detail: describeError(error), fault: error.fault, nothingSent: error.nothingSent };
  if (!classify) return { kind: "unknown", detail: describeError(error) };
  try {
    return classify(error);
  } catch (classifyError) {
    return { kind: "unknown", detail: `${describeError(error)} (classifying it failed: ${describeError(classifyError)})` };
  }
}

async function record<L extends StoreLease>(
  store: GuardStore<L>,
  lease: L,
  answer: GuardWorkResult | GuardErrorClass,
  idempotencyKey: string,
  hooks: GuardPhaseHooks | undefined,
  untouched: boolean,
): Promise<GuardOutcome> {
  const release = async (outcome: GuardOutcome): Promise<GuardOutcome> => {
    try {
      await store.release(lease);
    } catch {
      // The lease lapses on its own; the record stays pending either way.
    }
    return outcome;
  };
  // Every way out of a claim ends the record or hands it to recovery. A refusal (our vault's cap or key, a request
  // found invalid late, Stripe refusing it) on an untouched record ends it: removed, reservation given back, so the
  // dead letter does not leave it pending and reserved for ever. Anything else is released: pending for the retry
  // and the reconciler (`stalePending`), which re-runs it and reports what is still refused.
  const forgetOrRelease = async (outcome: GuardOutcome): Promise<GuardOutcome> => {
    try {
      if (await store.forget(lease)) return outcome;
    } catch {
      // Not removed: released below, so recovery finds it.
    }
    return release(outcome);
  };
  const refused = async (outcome: GuardOutcome): Promise<GuardOutcome> => {
    const conflict = outcome.kind === "invalid" && outcome.reason === "StripeIdempotencyConflict";
    return !untouched || conflict ? release(outcome) : forgetOrRelease(outcome);
  };
  const kind = "status" in answer ? answer.status : answer.kind;
  switch (kind) {
    case "done": {
      const done = answer as { objectId: string; result?: Record<string, unknown> };
      try {
        await store.markDone(lease, { objectId: done.objectId, ...(done.result === undefined ? {} : { result: done.result }) });
      } catch (error) {
        // Done at Stripe, not recorded: the retry claims again and Stripe replays the same object.
        return release({ kind: "unknown", detail: `Stripe answered ${done.objectId}, recording it failed: ${describeError(error)}`, idempotencyKey, ...faultOf(error) });
      }
      await hooks?.afterRecord?.();
      return { kind: "done", objectId: done.objectId, idempotencyKey };
    }
    case "declined": {
      const declined = answer as { reason: string; objectId?: string };
      try {
        await store.markDeclined(lease, { reason: declined.reason, ...(declined.objectId === undefined ? {} : { objectId: declined.objectId }) });
      } catch (error) {
        return release({ kind: "unknown", detail: `declined, but recording it failed: ${describeError(error)}`, idempotencyKey, ...faultOf(error) });
      }
      await hooks?.afterRecord?.();
      return { kind: "declined", reason: declined.reason, previously: false, idempotencyKey };
    }
    case "invalid": {
      const invalid = answer as { reason: string; detail: string };
      return refused({ kind: "invalid", reason: invalid.reason, detail: invalid.detail, idempotencyKey });
    }
    case "cap-exceeded":
      return refused({ kind: "cap-exceeded", reason: (answer as { reason: string }).reason, idempotencyKey });
    default: {
      const { fault, detail, nothingSent } = answer as { fault?: DependencyFault; detail?: string; nothingSent?: boolean };
      const outcome: GuardOutcome = { kind: "unknown", detail: detail ?? "unknown", idempotencyKey, ...(fault === undefined ? {} : { fault }) };
      // A wait that provably sent nothing leaves an untouched record out: attempts and age count only what reached Stripe.
      return nothingSent === true && untouched ? forgetOrRelease(outcome) : release(outcome);
    }
  }
}

/** A dependency's unavailability, carried into the outcome. */
function faultOf(error: unknown): { fault?: DependencyFault } {
  return error instanceof DependencyUnavailableError ? { fault: error.fault } : {};
}
