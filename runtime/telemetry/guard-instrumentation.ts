// The guard's store as telemetry sees it: each operation timed and traced, its answers feeding the outcomes, the
// charged amounts and the duplicates the guard prevented, in a delivery (its scope) or outside one (the reconciler).
import { SpanKind, type Tracer } from "@opentelemetry/api";
import type { GuardStore, StoreClaim, StoreLease } from "../guard/guard-store.js";
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
  readonly #charges = new WeakMap<StoreLease, Charge>();
  readonly #operations = new Map<GuardOperation, Operation>();

  constructor(tracer: Tracer, instruments: Instruments) {
    this.#tracer = tracer;
    this.#instruments = instruments;
  }

  /**
   * The guard's store, every method timed and traced (an object the compiler checks against GuardStore: none can be
   * left out), its answers feeding the outcomes, charged amounts and duplicates prevented; `scope` is undefined
   * outside a delivery (the reconciler).
   */
  storePort<L extends StoreLease>(store: GuardStore<L>, scope: DeliveryScope | undefined): GuardStore<L> {
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
      forget: (lease, ground) => this.#operation("forget", scope, () => store.forget(lease, ground)),
    };
  }

  #operation<T>(operation: GuardOperation, scope: DeliveryScope | undefined, work: () => Promise<T>): Promise<T> {
    const known = cachedOperation(this.#operations, operation, () => ({ name: `chargeguard.${operation}`, attributes: { [attr.guardOperation]: operation } }));
    return timedSpan(this.#tracer, known, SpanKind.INTERNAL, scope, this.#instruments.guardOperationDuration, work);
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
