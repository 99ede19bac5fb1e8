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
// (model-poison.ts); a third of the runs open with the SDK retry met by 429s then a day, for a valid billing
// (model-retry-refused.ts, `retryRefusedOpening`), before the commands drawn.
//
// Replay a failure: the report prints fast-check's `seed` and `path`, the commands' `replayPath`, and the line:
//   CHARGEGUARD_MODEL_SEED=<seed> CHARGEGUARD_MODEL_PATH=<path> CHARGEGUARD_MODEL_REPLAY_PATH='<replayPath>' \
//     node scripts/with-postgres.mjs -- npx vitest run test/runtime/model/money-model.e2e.test.ts -t "<test name>"
// which replays exactly the shrunk counterexample; CHARGEGUARD_MODEL_TRACE=1 prints each run's commands and phases.
// PostgreSQL is required, never skipped: without TEST_DATABASE_URL a server is started for this file or it fails.
//
// Issue 41's six defects, each reintroduced in a local checkout (never committed), then this file run as `npm test`
// runs it (no seed set: fast-check draws its own). Measured 2026-12-07 16:43-17:10 UTC at load 2-9 (up to five model
// files at once on the 2-core machine, with CI) on the merged command set (moneyCommands(): the key command five
// times, the arrears outages and the SDK retry refused four times each, the poison twice), with the drain's poison
// batch in every run and a third of the runs opening with the SDK retry refused (retryRefusedOpening). A seed below
// replays on this command set only (CHARGEGUARD_MODEL_SEED=<seed> CHARGEGUARD_MODEL_PATH=<path>
// CHARGEGUARD_MODEL_REPLAY_PATH='<replayPath>' ... -t "<test>"); a change to the draws moves every seed.
// - Defect 1, a record forgotten although an SDK retry of its request may have reached Stripe: `maybeSent: false` in
//   place of `sends.maybeSent()` in runtime/guard/guarded-run.ts (a42a659 undone). Found by the first file, "on
//   pglite" CHARGEGUARD_MODEL_SEED=749360377 (path 0:3, replayPath AC:C), payment-intent/plain, opening with the SDK
//   retry refused (valid, 10,600 usd): "valid event acct-cus_... (10600 usd) billed 2 times, expected 1 (record:
//   done; dead letter: none)"; its "on postgres" passed, and so did the second file (108 s); the third found it "on
//   pglite", 219375233 (path 0, unshrunk in the time limit), payment-intent/keybrake+plain, the opening (valid,
//   199,300 usd): "billed 2 times, expected 1". Two files of three; before the opening, missed by four of four.
// - Defect 2, the pause after a refused key probing with the plain key and a PaymentIntents read: the probe in
//   runtime/consumer/message-intake.ts as before b29c9a9 (`stripeFor(options.stripe.apiKey)` and `paymentIntents.list`,
//   only when STRIPE_API_KEY is set). Found by one file of one, "on pglite" CHARGEGUARD_MODEL_SEED=-860690592 (path
//   1:0:3:2:2, replayPath CAL:F), payment-intent/keybrake, the key refused (401, revoked): with no probe the paused
//   fleet retried deliveries until the broker gave up: "valid event acct-cus_... (6000 gbp) billed 0 times, expected
//   1 (record: none; dead letter: MaxDeliveryCountExceeded: ...)"; the same seed and path pass with the fix in.
// - Defect 3, the breakers' probes asking the vault for the calendar month's key: both probes in
//   runtime/consumer/consumer-resilience.ts asking `keys.keyFor(...)` of `calendarBilling(...)` in place of
//   `billedKey`. NOT FOUND by three files of three on this command set (two passed, 120 s and 95 s; one failed only
//   on the open invoice finding below): it needs a keybrake cell and an arrears outage (drawn four times in the list).
//   Earlier, "on postgres" 932048092 found it on the command set before the opening. Still to do: draw it likelier.
// - Defect 4, the reconciler taking the oldest pending first and never moving unsettleable records out of its way: the
//   condition of `guard.holdUnsettleable` in runtime/operator/reconcile.ts made false (6a8f0ed undone). Found by one
//   file of one, "on pglite" CHARGEGUARD_MODEL_SEED=320032625 (path 1:0:0:3:2, replayPath F:B), payment-intent/plain,
//   a customer Stripe does not have, its SDK retry met 429s, a day passes: "record billing {...acct-cus_model_missing_
//   ...} still pending after 2 reconciler runs of --limit 1 over 1 stale records: recovery cannot reach it".
// - Defect 5, a NUL failing its whole claim batch: runtime/guard/guarded-run.ts without its assertStorable calls and
//   runtime/guard/guard.ts writing claim and done batches whole (no eachAloneOnRefusal). Found by every run since the
//   drain sends a poison batch: one file of one, both stores on their first run, shrunk to no commands, "on pglite"
//   CHARGEGUARD_MODEL_SEED=723628119 (path 0:0:0:0:0, replayPath EAB:F) and "on postgres" -1982448093 (path 0:0:0:0,
//   replayPath G:B), payment-intent/plain: "the event with a surrogate was dead-lettered RetryAttemptsExhausted
//   (outcome still unknown after 8 attempts (limit 8): guard failed: error: invalid input syntax for type json), not
//   InvalidEvent".
// - Defect 6, the vault counting every currency against one cap: the budget label without its currency in
//   runtime/stripe/vault/keybrake-key-provider.ts (`${budgetName}-${billingPeriod}`, e92007a undone). Found by the second file of two (the first drew
//   no keybrake spend cell in the runs it finished: 3 of 4 "on postgres" within its 150 s at load 9), "on pglite"
//   CHARGEGUARD_MODEL_SEED=-1559611414 (path 0:0:1:1, replayPath A:B), payment-intent/keybrake: "valid event
//   acct-cus_... (201001 eur) billed 0 times, expected 1 (record: none; dead letter: SpendCapExceeded: ... vault key
//   spend cap: charging 201001 would take today's spend to 859938, over the cap of 660000 cents)".
// Each fix restored, the file passes: 73 s at load 4, 128 s beside another model file, 171 s alone at load 0.2-0.7
// (two postgres runs of 52-55 s, each with four or more drawn outages: the database refusing, the arrears outages,
// the key refused; the drain's poison costs 1-3 s a run, the opening ~6 s a run that draws it). With a defect in:
// 95-120 s a file that passes, 164-307 s one that finds it, shrinking included up to its 150 s limit a test.
// Open, seen while measuring (not one of the six): with every fix in, "on pglite" CHARGEGUARD_MODEL_SEED=-1602797974
// CHARGEGUARD_MODEL_PATH=0:1:1:3 fails, invoice/pglite/plain, opening with the SDK retry refused (valid, eur), then
// the key's permission taken (403), the reconciler beside the fleet, every lock lapsing: "valid event acct-cus_...
// (152200 eur) billed 0 times, expected 1 (record: unsettleable; dead letter: none)" (an invoice billing held
// unsettleable that Stripe never billed: the outcome check allows that for meter events only). Defect 4's "on
// postgres" failure, a valid payment-intent/keybrake+plain billing charged twice (seed -193856334, path 2:0), did
// not fail with every fix in (11 runs replayed from that seed and path, interrupted at 150 s).
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
 * an SDK retry refused then a day, load average 2-12: a run that draws the last takes 8-15 s; a file that finds a
 * defect takes up to its time limits, 2-3 min).
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
