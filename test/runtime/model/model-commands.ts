// The commands fast-check draws sequences of (`fc.commands`): deliveries, duplicates, dead-letter resubmission,
// crashes at a step, Stripe's, the vault's and the database's faults, lease expiry, time passing, healing. Each one
// acts on the real system (ModelWorld) and updates the model; after each, no billing may have been charged twice.
import fc from "fast-check";
import { consumerSteps, type ConsumerStep } from "../../../runtime/handler/consumer-steps.js";
import { resubmitDeadLetters } from "../../../runtime/operator/index.js";
import { type StripeFaultAction } from "../../../sandbox/index.js";
import { idempotencyWindowMs } from "../../../sandbox/stripe/index.js";
import { moneyPaths, usesVault } from "./model-cells.js";
import { resubmittedReasons, type EventKind, type ModelEvent, type MoneyModel } from "./model-invariants.js";
import { breakerFaultCommands } from "./model-breaker-faults.js";
import { busFaultCommands } from "./model-bus-faults.js";
import { command } from "./model-command.js";
import { keyFaultCommands } from "./model-key-faults.js";
import { poisonCommands } from "./model-poison.js";
import { reconcileBesideFleet } from "./model-reconciler.js";
import { modelSpendCaps, modelTimings, type ModelWorld } from "./model-world.js";
import { customerCommands } from "./model-customers.js";
import { calendarCommands } from "./model-calendar.js";
import { retryRefusedCommands } from "./model-retry-refused.js";

type Cmd = fc.AsyncCommand<MoneyModel, ModelWorld>;

/** A fresh billing of the given kind: its own Stripe customer (one whose card works or declines), or none at all. */
export async function makeEvent(world: ModelWorld, kind: EventKind, amountCents: number, currency: string = modelSpendCaps.currencies[0]): Promise<ModelEvent> {
  const { admin, clock } = world.sandbox;
  let customer: string;
  if (kind === "unknown-customer") customer = `cus_model_missing_${world.run}_${amountCents}`;
  else {
    const [source, method] = kind === "declined" ? ["tok_chargeDeclined", "pm_card_chargeDeclined"] : ["tok_visa", "pm_card_visa"];
    customer = (await admin.customers.create({ name: "model", source, invoice_settings: { default_payment_method: method } })).id;
  }
  const body = {
    customerId: `acct-${customer}`,
    stripeCustomerId: customer,
    paymentMethodId: kind === "declined" ? "pm_card_chargeDeclined" : "pm_card_visa",
    // The month the virtual clock is in when the event is sent: a month turning on the clock starts a new period.
    billingPeriod: new Date(clock.now()).toISOString().slice(0, 7),
    amountCents,
    currency,
    ...(world.cell.flow === "meter-event" ? { at: Math.floor(clock.now() / 1000) - 60 } : {}),
  };
  return { kind, body };
}

const send = (kind: EventKind, base: number, currency: string = modelSpendCaps.currencies[0]) =>
  command(`send(${kind}, ${base}, ${currency})`, async (m, r) => {
    // Unique in the run (the position in the model), so a charge or a ledger entry leads back to its event.
    const event = await makeEvent(r, kind, base * 100 + m.events.length, currency);
    m.events.push(event);
    await r.sandbox.send(r.queue, { body: event.body, messageId: `model-${r.run}-${m.messages++}` });
  });

/** A producer's duplicate of an event already sent (a new messageId: duplicate detection does not drop it). */
const duplicate = (pick: number) =>
  command(
    `duplicate(#${pick})`,
    async (m, r) => {
      const event = m.events[pick % m.events.length] as ModelEvent;
      await r.sandbox.send(r.queue, { body: event.body, messageId: `model-${r.run}-${m.messages++}` });
    },
    (m) => m.events.length > 0,
  );

const resubmit = command("resubmit dead letters", async (_m, r) => {
  await resubmitDeadLetters({ connectionString: r.sandbox.serviceBus.connectionString, queue: r.queue, filter: { reasons: resubmittedReasons }, maxWaitTimeInMs: 300 });
});

const crash = (replica: number, step: ConsumerStep) =>
  command(`crash(replica ${replica} at ${step})`, async (_m, r) => r.armCrash(replica, step));

export type StripeFaultKind = "rateLimit" | "serverError" | "timeout" | "dropped";

const stripeAction = (kind: StripeFaultKind): StripeFaultAction => {
  switch (kind) {
    case "rateLimit":
      return { action: "rateLimit" };
    case "serverError":
      return { action: "serverError", saved: false };
    case "timeout":
      return { action: "latency", ms: modelTimings.stripeLatencyMs };
    case "dropped":
      return { action: "commitThenDrop" };
  }
};

/** The next `times` money-moving requests meet the fault; `times` absent: every one until healed (an outage). */
const stripeFault = (kind: StripeFaultKind, times: number | undefined) =>
  command(`stripe ${kind} x${times ?? "all"}`, async (m, r) => {
    m.faults.add("stripe");
    r.sandbox.stripe.faults.inject({ method: "POST", path: moneyPaths[r.cell.flow], ...(times === undefined ? {} : { times }), ...stripeAction(kind) });
  });

export type VaultFaultKind = "throttled" | "unavailable";

/** The vault's key service throttles or is down (keys already issued keep working until they are refreshed). */
const vaultFault = (kind: VaultFaultKind) =>
  command(
    `vault ${kind}`,
    async (m, r) => {
      r.infra.keybrake.degradeKeyService(kind);
      m.faults.add("vault");
    },
    (m) => usesVault(m.cell),
  );

/** How long an event refused by the vault's cap may take to be dead-lettered (a refusal is no wait). */
const capRefusalMs = 15_000;

/**
 * The vault's cap refuses every spend from now until healed. With no other fault on, an event sent meanwhile must be
 * dead-lettered SpendCapExceeded within a bound: a refusal taken for Stripe throttling (a wait, and a cut of the
 * learned rate) instead would retry until the event's deadline.
 */
const vaultCap = command(
  "vault cap refuses",
  async (m, r) => {
    r.infra.front.capRefusing = true;
    const alone = m.faults.size === 0 && !r.kill.armed;
    m.faults.add("vault cap");
    if (!alone) return;
    const event = await makeEvent(r, "valid", 80_000 + m.events.length);
    m.events.push(event);
    await r.sandbox.send(r.queue, { body: event.body, messageId: `model-${r.run}-${m.messages++}` });
    const until = Date.now() + capRefusalMs;
    while (Date.now() < until) {
      const letter = r.sandbox.serviceBus.inspect(r.queue).deadLettered.find((l) => JSON.stringify(l.body ?? "").includes(event.body.customerId));
      if (letter?.deadLetterReason === "SpendCapExceeded") return;
      if (letter) throw new Error(`the vault's cap refused ${event.body.customerId}, dead-lettered ${letter.deadLetterReason} instead of SpendCapExceeded`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the vault's cap refused ${event.body.customerId}, and ${capRefusalMs} ms later it was not dead-lettered SpendCapExceeded: the refusal was taken for a wait`);
  },
  (m) => usesVault(m.cell),
);

const databaseRefuse = command(
  "database refuses connections",
  async (m, r) => {
    if (r.store.kind !== "postgres") return;
    r.store.proxy.mode("refuse");
    m.faults.add("database");
  },
  (m) => m.cell.store === "postgres",
);

/** The database stops answering, then every connection is cut (a standby takeover), then it answers again. */
const databaseHangThenCut = (holdMs: number) =>
  command(
    `database hangs ${holdMs} ms, then every connection is cut`,
    async (m, r) => {
      if (r.store.kind !== "postgres") return;
      r.store.proxy.mode("hang");
      await new Promise((resolve) => setTimeout(resolve, holdMs));
      r.store.proxy.drop();
      r.store.proxy.mode(m.faults.has("database") ? "refuse" : "pass");
    },
    (m) => m.cell.store === "postgres",
  );

/** Every guard lease held now lapses (virtual time): a twin delivery may take a billing over mid-flight. */
const leaseExpiry = command("leases expire", async (_m, r) => {
  r.sandbox.clock.advance(modelTimings.leaseMs + 500);
});

/**
 * The virtual clock crosses Stripe's 24 h key window (and with it the vault's daily reset and every key's lifetime):
 * a billing still unknown is then found by look-up, never charged again on a pruned key; one that cannot be (a meter
 * event, a refusal) is held as unsettleable for an operator, its reservation kept.
 */
const crossKeyWindow = command("a day passes (Stripe's 24 h key window)", async (_m, r) => restartAfter(r, idempotencyWindowMs + 60_000));

/**
 * Time jumps between deliveries, not inside one: the fleet stops (its requests in flight end), the clock moves, it
 * starts again. A jump inside a request would make a 1.5 s try and the SDK's retry of it a day apart, which no clock
 * does. The replicas start in the background, as a platform restarts containers: a start during a database outage
 * waits for the database, however long, while the run goes on (drawn while the database refuses too: a replica that
 * gave up would fail the run, runtime/consumer/database-at-start.ts).
 */
export async function restartAfter(r: ModelWorld, advanceMs: number): Promise<void> {
  await r.stopReplicas();
  r.sandbox.clock.advance(advanceMs);
  r.startReplica(0);
  r.startReplica(1);
}

/**
 * The virtual clock crosses a month boundary (to a minute past the next month's start): events sent from now on bill
 * the new period, under its own cap per currency and the vault's keys for it; what is in flight bills the old one.
 * Between deliveries, as a day passing is (the jump may be weeks).
 */
const monthTurns = command("the month turns", async (_m, r) => {
  const now = new Date(r.sandbox.clock.now());
  await restartAfter(r, Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 1) - now.getTime());
});

/** The operator's reconciler runs once beside the fleet (model-reconciler.ts). */
const reconcilerBeside = command("the reconciler runs beside the fleet", async (_m, r) => reconcileBesideFleet(r));

/** Time passes while the fleet works (what a producer's quiet moment is). */
const pause = (ms: number) => command(`pause ${ms} ms`, async () => new Promise((resolve) => setTimeout(resolve, ms)));

const heal = command("heal every fault", async (m, r) => {
  r.heal();
  m.faults.clear();
});

/** Commands by name, for a scenario written out (money-model-day.e2e.test.ts) rather than drawn. */
export const scenarioCommands = { send, stripeFault, databaseRefuse, crossKeyWindow, monthTurns, reconcilerBeside, leaseExpiry, pause, heal };

const amount = () => fc.integer({ min: 100, max: 5_000 });

export function moneyCommands(): fc.Arbitrary<Cmd>[] {
  const kind = fc.constantFrom<EventKind>("valid", "valid", "declined", "unknown-customer");
  const currency = fc.constantFrom(...modelSpendCaps.currencies);
  return [
    fc.tuple(kind, amount(), currency).map(([k, a, c]) => send(k, a, c)),
    fc.tuple(kind, amount(), currency).map(([k, a, c]) => send(k, a, c)),
    fc.nat().map(duplicate),
    ...customerCommands(),
    fc.constant(resubmit),
    fc.tuple(fc.integer({ min: 0, max: 1 }), fc.constantFrom(...consumerSteps)).map(([replica, step]) => crash(replica, step)),
    fc.tuple(fc.constantFrom<StripeFaultKind>("rateLimit", "serverError", "timeout", "dropped"), fc.option(fc.integer({ min: 1, max: 3 }), { freq: 4 })).map(([k, times]) =>
      stripeFault(k, times ?? undefined),
    ),
    fc.constantFrom<VaultFaultKind>("throttled", "unavailable").map(vaultFault),
    fc.constant(vaultCap),
    fc.constant(databaseRefuse),
    fc.integer({ min: 1_000, max: 3_000 }).map(databaseHangThenCut),
    fc.constant(leaseExpiry),
    fc.constant(crossKeyWindow),
    fc.constant(monthTurns),
    ...calendarCommands(),
    ...retryRefusedCommands(),
    fc.constant(reconcilerBeside),
    fc.integer({ min: 200, max: 1_500 }).map(pause),
    fc.constant(heal),
    ...keyFaultCommands(),
    ...breakerFaultCommands(),
    ...busFaultCommands(),
    ...poisonCommands(),
  ];
}
