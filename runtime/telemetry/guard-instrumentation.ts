// The guard's ports as telemetry sees them: each operation timed and traced, its answers feeding the outcomes, the
// charged amounts and the duplicates the guard prevented. Serves the billing guard port and the guard_records store
// alike, in a delivery (its scope) or outside one (the reconciler).
import { SpanKind, type Tracer } from "@opentelemetry/api";
import type { BillingGuardPort } from "../handler/billing-handler.js";
import type { GuardStore, StoreClaim, StoreLease } from "../guard/guard-store.js";
import type { ClaimResult, Lease } from "../guard/types.js";
import type { DeliveryScope } from "./delivery-scope.js";
import type { Instruments } from "./instruments.js";
import { attributeNames as attr, type GuardOperation, type PreventedBy } from "./metric-names.js";
import { countPrevented } from "./prevented-duplicates.js";
import { cachedOperation, timedSpan, type Operation } from "./traced-work.js";

type Charge = { amountCents: number; currency: string };

export class GuardInstrumentation {
  readonly #tracer: Tracer;
  readonly #instruments: Instruments;
  /** What a lease's billing would charge: counted when its record turns charged (in a delivery or in the reconciler). */
  readonly #charges = new WeakMap<Lease | StoreLease, Charge>();
  readonly #operations = new Map<GuardOperation, Operation>();

  constructor(tracer: Tracer, instruments: Instruments) {
    this.#tracer = tracer;
    this.#instruments = instruments;
  }

  /** The billing guard port, reporting to `scope` (undefined outside a delivery). */
  guardPort(guard: BillingGuardPort, scope: DeliveryScope | undefined): BillingGuardPort {
    return {
      claim: (input, owner) =>
        this.#operation("claim", scope, async () => {
          const result = await guard.claim(input, owner);
          this.#claimed(result, { amountCents: input.amountCents, currency: input.currency }, scope);
          return result;
        }),
      markCharged: (lease, outcome) =>
        this.#operation("mark_charged", scope, async () => {
          const turned = await guard.markCharged(lease, outcome);
          this.#recorded("charged", turned, this.#charges.get(lease), scope);
          return turned;
        }),
      markDeclined: (lease, outcome) =>
        this.#operation("mark_declined", scope, async () => {
          const turned = await guard.markDeclined(lease, outcome);
          this.#recorded("declined", turned, undefined, scope);
          return turned;
        }),
      releaseLease: (lease) => this.#operation("release_lease", scope, () => guard.releaseLease(lease)),
      ...(guard.forgetRefused === undefined ? {} : { forgetRefused: (lease) => this.#operation("forget", scope, () => guard.forgetRefused!(lease)) }),
      markCompletedLater: (key) => guard.markCompletedLater(key),
      flushCompletions: () => guard.flushCompletions(),
    };
  }

  /**
   * A guard_records store (any flow but the default one, or the team's own event): timed and traced like the billing
   * guard, its answers feeding the same outcomes, charged amounts and duplicates prevented.
   */
  storePort<L extends StoreLease>(store: GuardStore<L>, scope: DeliveryScope): GuardStore<L> {
    return {
      claim: (request) =>
        this.#operation("claim", scope, async () => {
          const claim = await store.claim(request);
          this.#storeClaimed(claim, request.spend, scope);
          return claim;
        }),
      saveStep: (lease, step, objectId) => this.#operation("save_step", scope, () => store.saveStep(lease, step, objectId)),
      markDone: (lease, outcome) =>
        this.#operation("mark_charged", scope, async () => {
          const turned = await store.markDone(lease, outcome);
          this.#recorded("charged", turned, this.#charges.get(lease), scope);
          return turned;
        }),
      markDeclined: (lease, outcome) =>
        this.#operation("mark_declined", scope, async () => {
          const turned = await store.markDeclined(lease, outcome);
          this.#recorded("declined", turned, undefined, scope);
          return turned;
        }),
      release: (lease) => this.#operation("release_lease", scope, () => store.release(lease)),
      ...(store.forget === undefined ? {} : { forget: (lease: L) => this.#operation("forget", scope, () => store.forget!(lease)) }),
    };
  }

  #operation<T>(operation: GuardOperation, scope: DeliveryScope | undefined, work: () => Promise<T>): Promise<T> {
    const known = cachedOperation(this.#operations, operation, () => ({ name: `chargeguard.${operation}`, attributes: { [attr.guardOperation]: operation } }));
    return timedSpan(this.#tracer, known, SpanKind.INTERNAL, scope, this.#instruments.guardOperationDuration, work);
  }

  #claimed(result: ClaimResult, charge: Charge, scope: DeliveryScope | undefined): void {
    if (scope) scope.claim = result.status;
    if (result.status === "claimed") this.#charges.set(result.lease, charge);
    const prevented: PreventedBy | undefined =
      result.status === "already-billed" ? "guard_billed" : result.status === "declined" ? "guard_declined" : result.status === "busy" ? "guard_busy" : undefined;
    if (prevented) countPrevented(this.#instruments, prevented, scope);
  }

  #storeClaimed<L extends StoreLease>(claim: StoreClaim<L>, spend: { amount: number; currency: string } | undefined, scope: DeliveryScope | undefined): void {
    const status = claim.status === "already-done" ? "already-billed" : claim.status;
    if (scope) scope.claim = status;
    if (claim.status === "claimed" && spend) this.#charges.set(claim.lease, { amountCents: spend.amount, currency: spend.currency });
    const prevented: PreventedBy | undefined =
      status === "already-billed" ? "guard_billed" : status === "declined" ? "guard_declined" : status === "busy" ? "guard_busy" : undefined;
    if (prevented) countPrevented(this.#instruments, prevented, scope);
  }

  #recorded(state: "charged" | "declined", turned: boolean, charge: Charge | undefined, scope: DeliveryScope | undefined): void {
    if (scope) scope.recorded = turned ? state : `${state}-noop`;
    if (!turned) return;
    this.#instruments.outcomes.add(1, { [attr.outcome]: state });
    if (state === "charged" && charge) this.#instruments.chargedAmount.add(charge.amountCents, { [attr.currency]: charge.currency });
  }
}
