// The guard primitive: any Stripe work behind a claim that is durable before Stripe is called, with the outcome
// recorded before the caller settles anything. In the spirit of Powertools' makeIdempotent, made safe for money:
// identity from fields the caller names, a fingerprint of the rest (same identity, other parameters: mismatch), an
// optional spend reservation, a lease with an AbortSignal when it lapses, and recovery points (named steps that
// persist the Stripe object id they produced and resolve from it on replay). An unknown outcome never deletes the
// record: it stays pending and reserved for the retry or the reconciler. A refusal that proves Stripe holds nothing
// for the record removes it (`GuardStore.forget`, on a ground: guard-outcome.ts); otherwise it goes to recovery too.
// Outcomes are values; nothing here throws except the caller's own phase hooks.
import { createHash, randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { canonicalDocument, canonicalJson } from "../core/canonical-json.js";
import { stableKey } from "../core/stable-key.js";
import { describeError, errorMessage } from "../core/describe-error.js";
import { ChargeguardSignal, GuardInputError, InvalidEventError, LeaseLapsedError } from "../core/errors.js";
import type { GuardStore, Spend, StoreClaim, StoreLease } from "./guard-store.js";
import { DependencyUnavailableError } from "./dependency-fault.js";
import { faultOf, recordOutcome, type GuardErrorClass, type GuardOutcome, type GuardPhaseHooks, type GuardWorkResult } from "./guard-outcome.js";

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

export type { GuardErrorClass, GuardOutcome, GuardPhaseHooks, GuardWorkResult } from "./guard-outcome.js";

export interface GuardRunOptions {
  /** Classifies what the work throws; default: everything is unknown. */
  classify?(error: unknown): GuardErrorClass;
  hooks?: GuardPhaseHooks;
  /** For `now` when arming the lease's abort timer; default Date.now. */
  now?(): number;
  /**
   * Stripe's idempotency key window, given by a caller whose work makes no Stripe call before its first recovery
   * point but the one under the record's key (or that step's key), as every built-in flow does inside the window.
   * Then a Stripe refusal classified `refusedUnderKey` forgets the record at any attempt while the record is younger
   * than this (ForgetGround "refused-under-key"). Absent: only a first attempt's refusal forgets.
   */
  keyWindowMs?: number;
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
    // What a refusal can prove (guard-outcome.ts): the recovery points as they stand after the work.
    const facts = { firstAttempt: claim.attempt === 1, stepRecorded: Object.keys(context.steps).length > 0, keyWindowMs: options.keyWindowMs };
    return await recordOutcome(store, lease, answer, idempotencyKey, options.hooks, facts);
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
class StepNotRecorded extends ChargeguardSignal {
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
