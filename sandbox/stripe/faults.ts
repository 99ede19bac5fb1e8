import type { FormObject } from "./form.js";

/** What an injected fault does to a matching request. */
export type StripeFaultAction =
  /** Hold the request this long after it claimed its idempotency key (a concurrent same-key request gets 409). */
  | { action: "latency"; ms: number }
  /** Execute and save the result, then destroy the socket: the object exists, the client sees ECONNRESET. */
  | { action: "commitThenDrop" }
  /** Execute and save the result, then never answer: the client's own timeout fires (`StripeConnectionError`). */
  | { action: "commitThenHang" }
  /**
   * Answer 500 before anything is created. `saved` (default true, as Stripe does once an endpoint started):
   * the 500 is saved under the key and replayed, with `Stripe-Should-Retry: false`. `saved: false`: a front-door
   * 500 the SDK retries, and the retry with the same key executes.
   */
  | { action: "serverError"; saved?: boolean }
  /** 429 `rate_limit` before the idempotency layer (nothing saved): `StripeRateLimitError`. */
  | { action: "rateLimit" }
  /** 409 `idempotency_key_in_use`, as if a request with the same key were still executing (nothing saved). */
  | { action: "conflict" }
  /** 401 `authentication_error` before anything else, as Stripe answers a revoked or rolled key. */
  | { action: "revokedKey" }
  /** 403 before anything else, as Stripe answers a restricted key without the endpoint's permission. */
  | { action: "missingPermission" };

export interface StripeFaultRequest {
  method: string;
  /** e.g. `/v1/payment_intents`, `/v1/payment_intents/pi_.../confirm` */
  path: string;
  params: FormObject;
  idempotencyKey: string | undefined;
}

export interface StripeFaultMatch {
  /** Exact path, or a pattern; absent: every path. */
  path?: string | RegExp;
  /** absent: every method */
  method?: string;
  /** How many matching requests it hits; absent: until removed or cleared. */
  times?: number;
  when?: (request: StripeFaultRequest) => boolean;
}

export type StripeFaultSpec = StripeFaultMatch & StripeFaultAction;

export interface StripeFaultHandle {
  /** Requests this fault has hit so far. */
  readonly hits: number;
  remove(): void;
}

/** Where in a request's life a fault acts. */
export type FaultStage = "arrival" | "latency" | "claimed" | "committed";

function stageOf(action: StripeFaultAction): FaultStage {
  switch (action.action) {
    case "rateLimit":
    case "conflict":
    case "revokedKey":
    case "missingPermission":
      return "arrival";
    case "serverError":
      return action.saved === false ? "arrival" : "claimed";
    case "latency":
      return "latency";
    case "commitThenDrop":
    case "commitThenHang":
      return "committed";
  }
}

interface ActiveFault {
  spec: StripeFaultSpec;
  stage: FaultStage;
  hits: number;
}

/** Faults injected into the Stripe emulator, matched by method, path, count and predicate, in injection order. */
export class StripeFaults {
  #active: ActiveFault[] = [];

  inject(spec: StripeFaultSpec): StripeFaultHandle {
    if (spec.times !== undefined && (!Number.isInteger(spec.times) || spec.times < 1)) {
      throw new RangeError(`fault times must be a positive integer, got ${spec.times}`);
    }
    if (spec.action === "latency" && (!Number.isFinite(spec.ms) || spec.ms < 0)) {
      throw new RangeError(`latency ms must be a finite, non-negative number, got ${spec.ms}`);
    }
    const fault: ActiveFault = { spec, stage: stageOf(spec), hits: 0 };
    this.#active.push(fault);
    return {
      get hits() {
        return fault.hits;
      },
      remove: () => this.#remove(fault),
    };
  }

  clear(): void {
    this.#active = [];
  }

  /** The first fault of this stage that matches, counted as a hit (and retired once its `times` ran out). */
  take(stage: FaultStage, request: StripeFaultRequest): StripeFaultAction | undefined {
    if (this.#active.length === 0) return undefined;
    for (const fault of this.#active) {
      if (fault.stage !== stage || !matches(fault.spec, request)) continue;
      fault.hits += 1;
      if (fault.spec.times !== undefined && fault.hits >= fault.spec.times) this.#remove(fault);
      return fault.spec;
    }
    return undefined;
  }

  #remove(fault: ActiveFault): void {
    this.#active = this.#active.filter((candidate) => candidate !== fault);
  }
}

function matches(spec: StripeFaultMatch, request: StripeFaultRequest): boolean {
  if (spec.method !== undefined && spec.method.toUpperCase() !== request.method) return false;
  if (spec.path !== undefined) {
    if (typeof spec.path === "string") {
      if (spec.path !== request.path) return false;
    } else {
      spec.path.lastIndex = 0; // a /g pattern would otherwise remember its last match
      if (!spec.path.test(request.path)) return false;
    }
  }
  return spec.when === undefined || spec.when(request);
}
