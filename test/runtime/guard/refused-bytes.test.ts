// Issue 41, defect 5: one NUL character failed every claim batched with it. The schema took it, the database refused
// it (22P05) inside the group-committed claim, every co-batched billing became unknown and spent an attempt, and the
// poison event was retried to exhaustion. Now such an event is refused as InvalidEvent before its claim, and a batch
// the database refuses for one member's data is written again one by one, so only that member fails. Both stores.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultOwner, identify, runGuarded, type GuardRunInput } from "../../../runtime/guard/guarded-run.js";
import { Guard } from "../../../runtime/guard/guard.js";
import { openGuardPair } from "./databases.js";

let guards: Awaited<ReturnType<typeof openGuardPair>>;
const stores: Record<string, Guard> = {};

beforeAll(async () => {
  guards = await openGuardPair({ periodCapCents: 1_000_000 });
  Object.assign(stores, guards.stores);
});
afterAll(async () => {
  await guards?.close();
});

const input = (id: string, note: string): GuardRunInput => ({
  scope: "bytes",
  key: { usage: id },
  payload: { customer: "cus_1", note },
  spend: { period: "2026-10", currency: "usd", amount: 100 },
  flow: "payment-intent",
});

for (const storeName of ["pglite", "postgres"]) describe(`bytes the database refuses, on ${storeName} (issue 41, defect 5)`, () => {
  const store = () => stores[storeName] as Guard;

  it("an event with a NUL or a lone surrogate is InvalidEvent before its claim: no record, the work never runs", async () => {
    for (const [id, note] of [[`nul-${storeName}`, "a\u0000b"], [`surrogate-${storeName}`, "a\ud800b"]] as const) {
      let ran = false;
      const outcome = await runGuarded(store(), input(id, note), async () => {
        ran = true;
        return { status: "done", objectId: "pi_1" };
      });
      expect(outcome).toMatchObject({ kind: "invalid", reason: "InvalidEvent", detail: expect.stringContaining("payload.note") });
      expect(ran).toBe(false);
      expect(await store().get("bytes", { usage: id })).toBeUndefined();
    }
  });

  it("claims batched with one the database refuses are each answered: only that one fails", async () => {
    const claimOf = (id: string, note: string) => {
      const request = input(id, note);
      const identity = identify(request);
      return store().claim({ ...request, recordKey: identity.recordKey, idempotencyKey: identity.idempotencyKey, fingerprint: identity.fingerprint, owner: defaultOwner });
    };
    // Made in one turn: one group-committed batch.
    const claims = await Promise.allSettled([
      claimOf(`ok-1-${storeName}`, "fine"),
      claimOf(`poison-${storeName}`, "x\u0000y"),
      claimOf(`ok-2-${storeName}`, "fine"),
    ]);
    expect(claims.map((claim) => claim.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(claims[0]).toMatchObject({ value: { status: "claimed" } });
    expect(claims[2]).toMatchObject({ value: { status: "claimed" } });
  });
});
