// A delivery's scope is handed to the parts its telemetry instruments for it (no AsyncLocalStorage): another
// consumer's instruments called inside it neither see it nor change its outcome, and the delivery's own parts do,
// even when a Stripe slot runs the work later from another async context.
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import pLimit from "p-limit";
import type { DeliveryParts } from "../../../runtime/telemetry/billing-telemetry.js";
import type { MessageSettler, RetryScheduler } from "../../../runtime/handler/billing-handler.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Guard } from "../../../runtime/guard/guard.js";
import type { StoreClaimRequest } from "../../../runtime/guard/guard-store.js";
import { identify, type GuardRunInput } from "../../../runtime/guard/guarded-run.js";
import { attributeNames, metricNames } from "../../../runtime/telemetry/metric-names.js";
import { inMemoryTelemetry, type InMemoryTelemetry } from "../../support/in-memory-telemetry.js";

const redelivered = { messageId: "m-1", body: {}, deliveryCount: 1, applicationProperties: {} } as unknown as ServiceBusReceivedMessage;

const settler = { completeMessage: async () => {}, deadLetterMessage: async () => {} } as MessageSettler;
const scheduler = { scheduleMessages: async () => [] } as unknown as RetryScheduler;

const run: GuardRunInput = {
  scope: "billing",
  flow: "payment-intent",
  key: { customerId: "acct-1", billingPeriod: "2026-05" },
  payload: { amount: 1200, currency: "usd" },
  spend: { period: "2026-05", currency: "usd", amount: 1200 },
  idempotencyKey: "billing:v1:delivery-scope",
};
/** The claim the guard primitive makes for `run`, by `owner`. */
const claimBy = (owner: string): StoreClaimRequest => ({ ...run, ...identify(run), owner });

describe("delivery scopes of two telemetries in one process", () => {
  let guard: Guard;
  let first: InMemoryTelemetry;
  let second: InMemoryTelemetry;

  beforeAll(async () => {
    guard = await Guard.open({ inMemory: true });
    // A live lease held by someone else: every later claim of this billing is answered busy.
    expect((await guard.claim(claimBy("holder"))).status).toBe("claimed");
    first = inMemoryTelemetry();
    second = inMemoryTelemetry();
  });

  afterAll(async () => {
    await Promise.all([first.shutdown(), second.shutdown()]);
    await guard.close();
  });

  it("another telemetry's guard inside a delivery neither sees the delivery nor sets its outcome", async () => {
    let claimed: string | undefined;
    await first.telemetry.processMessage(redelivered, "billing", { settler, scheduler, ports: { store: guard as never } }, async () => {
      claimed = (await second.telemetry.instrumentStore(guard).claim(claimBy("other"))).status;
    });
    expect(claimed).toBe("busy");
    expect(await first.sum(metricNames.outcomes, { [attributeNames.outcome]: "busy" })).toBe(0);
    // Counted by the telemetry that made the call, outside any delivery of its own.
    expect(await second.sum(metricNames.duplicatesPrevented, { [attributeNames.source]: "other" })).toBe(1);
    expect(await second.sum(metricNames.duplicatesPrevented, { [attributeNames.source]: "redelivery" })).toBe(0);
  });

  it("its own guard inside its delivery sets the outcome and the source, through a Stripe slot too", async () => {
    const slot = pLimit(1);
    const parts: DeliveryParts = { settler, scheduler, ports: { store: guard as never, stripeSlot: slot } };
    await first.telemetry.processMessage(redelivered, "billing", parts, async (own) => {
      // The slot runs the claim later, from its own queue: the delivery's parts still know whose it is.
      const status = await (own.ports.stripeSlot as typeof slot)(async () => (await own.ports.store?.claim(claimBy("other")))?.status);
      expect(status).toBe("busy");
    });
    expect(await first.sum(metricNames.outcomes, { [attributeNames.outcome]: "busy" })).toBe(1);
    expect(await first.sum(metricNames.duplicatesPrevented, { [attributeNames.source]: "redelivery" })).toBe(1);
  });
});
