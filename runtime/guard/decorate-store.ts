// A store wrapped for something around each call (the database's breaker, telemetry, a test's fault): every method
// of GuardStore, written out, in an object the compiler checks against the interface. Each method is required there,
// so a method added to the store and left out here is a compile error, never a method that silently vanishes (a
// wrapper built from a list of names once dropped `forget`, and refused billings stayed pending and reserved).
import type { GuardStore, StoreLease } from "./guard-store.js";

/** What runs around one call of `method`: it must call `call` (once) and answer what it answers, or throw. */
export type AroundCall = <R>(method: keyof GuardStore, call: () => Promise<R>) => Promise<R>;

export function decorateStore<L extends StoreLease>(store: GuardStore<L>, around: AroundCall): GuardStore<L> {
  return {
    claim: (request) => around("claim", () => store.claim(request)),
    saveStep: (lease, step, objectId) => around("saveStep", () => store.saveStep(lease, step, objectId)),
    markDone: (lease, outcome) => around("markDone", () => store.markDone(lease, outcome)),
    markDeclined: (lease, outcome) => around("markDeclined", () => store.markDeclined(lease, outcome)),
    release: (lease) => around("release", () => store.release(lease)),
    forget: (lease, ground) => around("forget", () => store.forget(lease, ground)),
  };
}
