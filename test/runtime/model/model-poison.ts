// Events with bytes the database refuses (a NUL, a lone surrogate: PostgreSQL stores neither in text or jsonb) sent in
// one batch among valid ones, so the replicas' claims of them are group-committed together. The poison is refused as
// InvalidEvent before its claim (dead-lettered so, never retried); the valid ones are billed once, each on its first
// delivery (no attempt spent on them: one refused member must not fail its batch).
import fc from "fast-check";
import { command } from "./model-command.js";
import { makeEvent } from "./model-commands.js";
import type { ModelEvent, MoneyModel } from "./model-invariants.js";
import { modelSpendCaps, type ModelWorld } from "./model-world.js";
import { timesBilledEvent } from "./model-event-match.js";
import { queueCalm, until } from "./model-waits.js";

export type RefusedBytes = "nul" | "surrogate";
const bytesOf: Record<RefusedBytes, string> = { nul: "\u0000", surrogate: "\ud800" };

/** How long the poison may take to be dead-lettered, and the valid ones to be billed, with nothing else faulty. */
const withinMs = 15_000;

/**
 * `valid` valid events and one whose customer id carries the refused bytes, sent in one batch (the poison as JSON
 * text: a lone surrogate survives JSON's escape, not AMQP's UTF-8 strings). Checked at once when nothing else is
 * faulty and the queue was calm before: the poison dead-lettered InvalidEvent, the valid ones billed, none of them
 * retried as a further attempt (the fleet's log). Otherwise the drain checks the valid ones (model-invariants.ts),
 * and sends a batch of its own with nothing faulty, every run (defect 5 of issue 41 met by every run).
 */
export const poisonAmong = (bytes: RefusedBytes, valid: number, base: number) =>
  command(`send ${valid} valid events and one with a ${bytes} in one batch`, async (m: MoneyModel, r: ModelWorld) => {
    const alone = m.faults.size === 0 && !r.kill.armed && (await until(() => queueCalm(r), 5_000));
    await poisonBatch(m, r, { bytes, valid, base, check: alone });
  });

export interface PoisonBatch {
  bytes: RefusedBytes;
  valid: number;
  base: number;
  /** Judge the answer at once: only when nothing else is faulty and the queue was calm before. */
  check: boolean;
}

/** Sends the batch; when `check`, throws unless the poison is refused alone and the valid ones billed unretried. */
export async function poisonBatch(m: MoneyModel, r: ModelWorld, { bytes, valid, base, check }: PoisonBatch): Promise<void> {
  const events: ModelEvent[] = [];
  // In the currency whose cap never binds at the guard, and small (100-1,090 cents): the vault still holds that
  // currency's budget (model-world.ts), which the fresh demand after the faults nearly fills; a valid one refused
  // SpendCapExceeded would not be billed, rightly.
  for (let i = 0; i < valid; i++) events.push(await makeEvent(r, "valid", base * 100 + m.events.length + i, modelSpendCaps.uncapped));
  m.events.push(...events);
  const poison = (await makeEvent(r, "valid", base * 100 + m.events.length)).body;
  const customerId = `${poison.customerId}-${bytesOf[bytes]}-poison`;
  const sender = r.sandbox.client.createSender(r.queue);
  try {
    await sender.sendMessages([
      ...events.map((event) => ({ body: event.body, messageId: `model-${r.run}-${m.messages++}` })),
      { body: JSON.stringify({ ...poison, customerId }), messageId: `model-${r.run}-${m.messages++}` },
    ]);
  } finally {
    await sender.close();
  }
  if (!check) return;
  const letter = () => r.sandbox.serviceBus.inspect(r.queue).deadLettered.find((l) => String(l.body).includes(poison.stripeCustomerId));
  if (!(await until(() => letter() !== undefined, withinMs))) throw new Error(`the event with a ${bytes} was not dead-lettered within ${withinMs} ms (retried instead of refused)`);
  const reason = letter()?.deadLetterReason;
  if (reason !== "InvalidEvent") throw new Error(`the event with a ${bytes} was dead-lettered ${reason} (${letter()?.deadLetterDescription}), not InvalidEvent`);
  const billed = () => events.every((event) => timesBilledEvent(r.sandbox.stripe.ledger, r.cell.flow, event.body) >= 1);
  if (!(await until(() => billed() && queueCalm(r), withinMs))) throw new Error(`the ${valid} valid events batched with a ${bytes} were not all billed within ${withinMs} ms`);
  // An attempt spent is a retry scheduled as the next attempt ("retry 2 as ..."); a wait for Stripe's budget is not one.
  const spent = r.logs.filter((line) => events.some((e) => line.includes(e.body.customerId)) && /outcome unknown|; retry \d+ as /.test(line));
  if (spent.length > 0) throw new Error(`attempts were spent on the valid events batched with a ${bytes}: ${spent.join(" | ")}`);
}

/**
 * The refused-bytes command, drawn among the others (model-commands.ts), twice as often as one of them: it is checked
 * at once only with nothing else faulty, and the npm-test size must meet it so (defect 5 reintroduced, money-model.e2e.test.ts).
 */
export function poisonCommands(): fc.Arbitrary<fc.AsyncCommand<MoneyModel, ModelWorld>>[] {
  const poison = fc.tuple(fc.constantFrom<RefusedBytes>("nul", "surrogate"), fc.integer({ min: 2, max: 4 }), fc.integer({ min: 1, max: 10 })).map(([b, n, a]) => poisonAmong(b, n, a));
  return [poison, poison];
}
