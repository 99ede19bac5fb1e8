// One Stripe customer billed several times: in one period (a company paying for several of the team's accounts, its
// workspaces, each billed once a month), in both capped currencies, and again after the month turns (the same account,
// a new period: a new key). Stripe then holds several money objects per customer, so its holdings, the look-ups by
// customer after the key window and the caps per (period, currency) are exercised together; the invariants tell a
// customer's billings apart (model-event-match.ts).
import fc from "fast-check";
import type { ModelEventBody } from "./model-cells.js";
import { command } from "./model-command.js";
import type { ModelEvent, MoneyModel } from "./model-invariants.js";
import { modelSpendCaps, type ModelWorld } from "./model-world.js";

/**
 * A new billing for an earlier event's Stripe customer, in the period the clock is in: the same account when it has
 * no billing in that period yet (after the month turns), else one more of the customer's accounts (a workspace), so
 * the identity is new and Stripe holds one more object for the customer. Its amount is unique for the customer.
 */
export function againFor(model: Readonly<MoneyModel>, world: ModelWorld, earlier: ModelEvent, amountCents: number, currency: string): ModelEvent {
  const period = new Date(world.sandbox.clock.now()).toISOString().slice(0, 7);
  const account = `acct-${earlier.body.stripeCustomerId}`;
  const taken = model.events.some((event) => event.body.customerId === account && event.body.billingPeriod === period);
  const customerId = taken ? `${account}.workspace-${model.events.length}` : account;
  let amount = amountCents;
  const same = (event: ModelEvent) => event.body.stripeCustomerId === earlier.body.stripeCustomerId && event.body.amountCents === amount;
  while (model.events.some(same)) amount += 1;
  const body: ModelEventBody = {
    ...earlier.body,
    customerId,
    billingPeriod: period,
    amountCents: amount,
    currency,
    ...(earlier.body.at === undefined ? {} : { at: Math.floor(world.sandbox.clock.now() / 1000) - 60 }),
  };
  return { kind: earlier.kind, body };
}

/** Bills an earlier event's Stripe customer again (againFor), in `currency`. */
export const billAgain = (pick: number, base: number, currency: string) =>
  command(
    `bill again(#${pick}'s customer, ${base}, ${currency})`,
    async (m, r) => {
      const earlier = m.events[pick % m.events.length] as ModelEvent;
      const event = againFor(m, r, earlier, base * 100 + m.events.length, currency);
      m.events.push(event);
      await r.sandbox.send(r.queue, { body: event.body, messageId: `model-${r.run}-${m.messages++}` });
    },
    (m) => m.events.length > 0,
  );

/** The commands fast-check draws for customers billed again (twice in the list: as likely as a fresh send). */
export function customerCommands(): fc.Arbitrary<ReturnType<typeof billAgain>>[] {
  const again = fc
    .tuple(fc.nat(), fc.integer({ min: 100, max: 5_000 }), fc.constantFrom(...modelSpendCaps.currencies))
    .map(([pick, base, currency]) => billAgain(pick, base, currency));
  return [again, again];
}
