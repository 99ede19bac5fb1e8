// The money model, small size (`npm test`, the money project): fast-check draws a cell of the matrix (flow x vault,
// each store in its own test, so every run of `npm test` meets both stores) and a sequence of up to 8 commands
// (deliveries of valid, declining and unknown-customer events, a Stripe customer billed again: in the same period
// under another of its accounts, in either currency, after the month turns under the same one (model-customers.ts),
// producer duplicates, dead-letter resubmission, a
// replica killed at a step and restarted, Stripe's 429/5xx/timeout/dropped answers, the vault's cap refusal,
// throttling and outage, the database refusing or hanging then cutting every connection, guard leases lapsing, a day
// passing on the virtual clock past Stripe's 24 h key window, the month turning on it: a new period, 35 days passing
// (Stripe's meter-event timestamp window), the vault's daily reset crossed with two billings in flight
// (model-calendar.ts), an SDK retry met by 429s after its first try was executed and then a day passing
// (model-retry-refused.ts), the operator's reconciler run once beside the fleet: model-reconciler.ts; Stripe refusing
// the key, 401, or its right to the flow's resource, 403, until healed: model-key-faults.ts; a Stripe or vault outage
// opening the breakers while the fleet bills last month: model-breaker-faults.ts; Service Bus locks lapsing and
// ServerBusy on complete, abandon, dead-letter and lock renewal: model-bus-faults.ts; an event with a NUL or a lone
// surrogate batched with valid ones: model-poison.ts; the vault drawn among the plain key, the vault's keys alone and
// the vault's keys beside a plain STRIPE_API_KEY, and a charge, invoice or meter-event run on a key that cannot read
// PaymentIntents: restricted-key.ts) in two
// currencies whose caps per (period, currency) bind (400,000 each, amounts 10,000-500,000), and drives two in-process
// replicas of startBillingConsumer against the sandbox through the real SDKs, with the SDK's own retries as the template ships
// them (maxNetworkRetries 1; the timeout short, 1.5 s, so a held answer is met within the run). After each run:
// every valid event billed exactly once at Stripe, refused ones never, the spend ledger equal to the billed and
// pending reservations (a record held unsettleable past the key window keeps its own), nothing pending after the
// reconciler, no record pending that recovery cannot reach (the reconciler run with --limit 1 once per stale record,
// and one more, leaves none of them pending; every record it held unsettleable is on the operator's list and was held
// past its 24 h window: model-windows.ts), usage more than 35 days old unbilled only dead-lettered InvalidEvent for
// it, no unhandled error in the fleet, and fresh demand
// billed within 15 s of the faults ending (model-invariants.ts). Then at the Stripe emulator, read through its API
// with the real SDK (stripe-holdings.ts): every Stripe money object of the flow (PaymentIntent, charge, invoice and
// its items, meter event) maps to exactly one guard record by its key, a billed one to the record done with its id;
// no record done lacks its billed object; one meter event per identifier; Stripe's billed total per (period,
// currency) at or under its cap (a valid billing may go unbilled only dead-lettered SpendCapExceeded, no record
// left, by a refusal its own (period, currency) explains: model-event-match.ts). Every run's drain ends with two eur
// billings over half the cap each, so a cap binds in every run.
// Checked able to fail, each where the ledger-side invariants alone pass: the guard made to forget a record Stripe
// billed (forget in place of markDone, guard-outcome.ts) fails the meter-event day run on "maps to 0 guard
// records"; the guard made to ignore its caps (no cap in Guard's claim, guard.ts) fails the payment-intent month run
// (money-model-day.e2e.test.ts) on "Stripe billed 402003 in 2027-01/eur, over its cap of 400000", and so does
// every drawn run of a flow that reserves spend (the drain's eur pair).
// The large size is money-model-matrix.ts (a file per store); the fault paths written out, money-model-faults.e2e.test.ts.
//
// Every run also ends with a declining card and a customer Stripe does not have, and a vault cap refusal met alone
// must be dead-lettered SpendCapExceeded within 15 s; after every command no billing may be charged twice. Every
// run's drain meets a NUL or a lone surrogate (alternating by run) batched with two valid events, nothing else faulty
// (model-poison.ts). Before the commands drawn, a run opens (model-openings.ts) with nothing, a valid billing's SDK
// retry met by 429s then a day, an outage opening the breakers while the fleet bills in arrears, or Stripe refusing the
// key until it heals (billings sent until both replicas paused), a quarter of the runs each.
//
// Replay a failure: the report prints fast-check's `seed` and `path`, the commands' `replayPath`, and the line:
//   CHARGEGUARD_MODEL_SEED=<seed> CHARGEGUARD_MODEL_PATH=<path> CHARGEGUARD_MODEL_REPLAY_PATH='<replayPath>' \
//     node scripts/with-postgres.mjs -- npx vitest run test/runtime/model/money-model.e2e.test.ts -t "<test name>"
// which replays exactly the shrunk counterexample; CHARGEGUARD_MODEL_TRACE=1 prints each run's commands and phases.
// PostgreSQL is required, never skipped: without TEST_DATABASE_URL a server is started for this file or it fails.
//
// Issue 41's six defects, each reintroduced in a local checkout (never committed; how, below), then this file run as
// `npm test` runs it (no seed set: fast-check draws its own), one file per defect, two files at a time on the 2-core
// machine, 2026-12-07 18:57-19:10 UTC, on this command set (moneyCommands() as listed, the openings, the poison batch
// in every drain). Every defect was found by its file, on the store(s) named. A seed replays on this command set only
// (CHARGEGUARD_MODEL_SEED=<seed> CHARGEGUARD_MODEL_PATH=<path> CHARGEGUARD_MODEL_REPLAY_PATH='<replayPath>' ...
// -t "on <store>"); a change to the draws moves every seed.
// - Defect 1, a record forgotten although an SDK retry of its request may have reached Stripe: `maybeSent: false` in
//   place of `sends.maybeSent()` in runtime/guard/guarded-run.ts. Found on both stores, each shrunk to the opening
//   alone, payment-intent/plain, the SDK retry refused then a day (valid, 10,000 usd): "valid event acct-cus_...
//   (10000 usd) billed 2 times, expected 1 (record: done; dead letter: none)": "on pglite" seed -399285326 (path
//   1:0:0:0:0:0, replayPath BAE:F), "on postgres" 228094318 (path 0:0:0:0:0:0, replayPath B:B).
// - Defect 2, the pause after a refused key probing with the plain key and a PaymentIntents read: the probe in
//   runtime/consumer/message-intake.ts as `...(options.stripe.apiKey ? { probe: stripeKeyProbe(async () =>
//   parts.stripe.stripeFor(options.stripe.apiKey), (stripe) => stripe.paymentIntents.list({ limit: 1 })) } : {})`.
//   Found "on postgres", seed -2115068921 (path 0:1:1, replayPath ":"), invoice/plain (its key may not read
//   PaymentIntents), shrunk to the opening alone, the key refused (401): "the fleet did not drain the queue within
//   30000 ms of every fault healed: {"active":1,...}"; "on pglite" passed. (Before the key command sent billings until
//   both replicas paused, two files missed it: one paused replica, the other billed everything after the heal.)
// - Defect 3, the breakers' probes asking the vault for the calendar month's key: both probes in
//   runtime/consumer/consumer-resilience.ts asking `keys.keyFor(calendarBilling(..).period, calendarBilling(..).request)`
//   in place of `billedKey(calendarBilling(..))`. Found on both stores, shrunk to the opening alone, payment-intent, a
//   Stripe outage while the fleet bills in arrears: "billing 2026-11 in arrears: 2 of 6 billed within 15000 ms of the
//   stripe outage ending (a breaker's probe refused?)": "on pglite" seed -1603410698 (path 0:1, replayPath A:A,
//   keybrake+plain), "on postgres" 962641235 (path 0:0:1:1, replayPath ":", keybrake).
// - Defect 4, the reconciler never moving unsettleable records out of its way: `verdict && false &&` in the condition
//   of `guard.holdUnsettleable` in runtime/operator/reconcile.ts. Found "on pglite", seed -1530266222 (path 1, not
//   shrunk within the time limit), meter-event/plain, opening with the SDK retry refused then a day and drawing it
//   twice more among seven commands: "record billing {...} still pending after 3 reconciler runs of --limit 1 over 2
//   stale records: recovery cannot reach it"; "on postgres" passed.
// - Defect 5, a NUL or lone surrogate failing its whole claim batch: runtime/guard/guarded-run.ts without its two
//   assertStorable calls and runtime/guard/guard.ts writing claim and done batches whole (`writeClaims(sql, items)`,
//   no eachAloneOnRefusal). Found on both stores by the drain's poison batch: "the event with a surrogate was
//   dead-lettered RetryAttemptsExhausted (outcome still unknown after 8 attempts (limit 8): guard failed: error:
//   invalid input syntax for type json), not InvalidEvent": "on pglite" seed 1423049007 (path 0:0:0:0:0:0:0,
//   replayPath AD:C), "on postgres" 968269420 (path 0:0, replayPath B:B), payment-intent/plain.
// - Defect 6, the vault counting every currency against one cap: the budget label without its currency in
//   runtime/stripe/vault/keybrake-key-provider.ts (`${budgetName}-${billingPeriod}`). Found "on postgres", seed
//   -1936117800 (path 0:0:1, replayPath GA:B), payment-intent/keybrake, shrunk to no command: "valid event acct-cus_...
//   (90004 gbp) billed 0 times, expected 1 (record: none; dead letter: SpendCapExceeded: ... vault key spend cap:
//   charging 90004 would take today's spend to 743230, over the cap of 660000 cents)"; "on pglite" passed.
// A file with a defect in took 120-241 s (shrinking included, up to its 150 s limit a test). Every fix in, the file
// passed in 117 s alone at load 0.1-1 ("on pglite" 17 s, "on postgres" 99 s, of which one run drawing a key refusal
// and outages took 42 s).
import fc from "fast-check";
import { describe, it } from "vitest";
import { modelFlows, modelStores, modelVaults } from "./model-cells.js";
import { checkMoneyModel, modelInfraForFile } from "./money-model.js";

/**
 * Runs per store and commands per run: the small size. Measured on the 2-core machine shared with other work: about
 * 60 s for the file when the invariants hold (30 s of it starting the emulators, PGlite and PostgreSQL; 3-7 s a run;
 * 46 s with the SDK's retries on, 2026-12-07, load average 13; 49-54 s with the checks at Stripe, two currencies,
 * two periods and binding caps, 2026-12-07, load average 10-17; 37-55 s with the key, breaker, Service Bus and
 * refused-bytes faults, 2026-12-07, load average 6-10; 40-63 s with a customer billed again, the calendar's edges and
 * an SDK retry refused then a day, load average 2-12: a run that draws the last takes 8-15 s; 117 s with the runs'
 * openings and the drain's poison batch, alone at load 0.1-1; a file that finds a defect takes up to its time limits,
 * 2-4 min).
 * A failure costs more: each shrinking step is a run, bounded by `timeLimitMs`. Four runs per store: a defect on the
 * refusal path of any flow but meter events (which Stripe does not refuse) is met by a run with odds 255 in 256.
 */
const runsPerStore = 4;
const maxCommands = 8;
const timeLimitMs = 150_000;

const infra = modelInfraForFile();

describe("the money invariants across the matrix (model-based, small)", () => {
  for (const store of modelStores) {
    it(`on ${store}, flow x vault drawn by fast-check`, async () => {
      await checkMoneyModel({
        infra: infra(),
        cells: fc.record({ flow: fc.constantFrom(...modelFlows), store: fc.constant(store), vault: fc.constantFrom(...modelVaults) }),
        numRuns: runsPerStore,
        maxCommands,
        timeLimitMs,
      });
    }, timeLimitMs + 120_000);
  }
});
