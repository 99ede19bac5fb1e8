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
// must be dead-lettered SpendCapExceeded within 15 s; after every command no billing may be charged twice.
//
// Replay a failure: the report prints fast-check's `seed` and `path`, the commands' `replayPath`, and the line:
//   CHARGEGUARD_MODEL_SEED=<seed> CHARGEGUARD_MODEL_PATH=<path> CHARGEGUARD_MODEL_REPLAY_PATH='<replayPath>' \
//     node scripts/with-postgres.mjs -- npx vitest run test/runtime/model/money-model.e2e.test.ts -t "<test name>"
// which replays exactly the shrunk counterexample; CHARGEGUARD_MODEL_TRACE=1 prints each run's commands and phases.
// PostgreSQL is required, never skipped: without TEST_DATABASE_URL a server is started for this file or it fails.
//
// Issue 41's six defects, each reintroduced in a local checkout (never committed), then this file run as `npm test`
// runs it (no seed set: fast-check draws its own). Measured 2026-12-07 at load 0.2-3.7 on the MERGED command set (both
// halves of the model's commands in moneyCommands(), with the key command five times, the arrears outages and the
// SDK retry refused four times each); a seed below replays on this command set only (CHARGEGUARD_MODEL_SEED=<seed>
// ... -t "<test>", the shrunk counterexample with its path as printed), and a weight change moves every seed. The
// seeds are those fast-check reported; a file may miss a defect whose command it does not draw (counted below).
// - Defect 1, a record forgotten although an SDK retry of its request may have reached Stripe: `maybeSent: false` in
//   place of `sends.maybeSent()` in runtime/guard/guarded-run.ts (a42a659 undone). NOT FOUND on this command set:
//   missed by two files before the weights and two after them (its command, the SDK retry met by 429s then a day, is
//   drawn four times; the run must also draw a flow and vault where the retry's first try bills). Found on the earlier,
//   smaller command set by seeds -1209174555 ("on pglite") and 114964167 ("on postgres"), which no longer replay it.
//   Still to do: draw it likelier and record the seed.
// - Defect 2, the pause after a refused key probing with the plain key and a PaymentIntents read: the probe in
//   runtime/consumer/message-intake.ts as before b29c9a9 (`stripeFor(options.stripe.apiKey)` and `paymentIntents.list`,
//   only when STRIPE_API_KEY is set). Missed by one file before the weights above (the key command three times); found
//   by the next on both stores: "on pglite" CHARGEGUARD_MODEL_SEED=973419941 (path 0:0:3:2, replayPath F:B) and "on
//   postgres" 1072322803 (path 0:0:5, replayPath G:B), payment-intent/keybrake+plain, the key refused (401) with a
//   billing waiting: "the fleet did not drain the queue within 30000 ms of every fault healed: {"active":2,...}" (the
//   vault refuses the plain key for ever: "unknown vault key").
// - Defect 3, the breakers' probes asking the vault for the calendar month's key: both probes in
//   runtime/consumer/consumer-resilience.ts asking `keys.keyFor(...)` of `calendarBilling(...)` in place of
//   `billedKey`. Missed by one file before the weights; found by the next, "on postgres" CHARGEGUARD_MODEL_SEED=
//   932048092 (path 0:0, replayPath AE:B): payment-intent/keybrake+plain, a Stripe outage opens the breakers while the
//   fleet bills last month: "billing 2026-11 in arrears: 0 of 6 billed within 15000 ms of the stripe outage ending (a
//   breaker's probe refused?)".
// - Defect 4, the reconciler taking the oldest pending first and never moving unsettleable records out of its way: the
//   condition of `guard.holdUnsettleable` in runtime/operator/reconcile.ts made false (6a8f0ed undone). Missed by one
//   file before the weights; found by the next, "on postgres" CHARGEGUARD_MODEL_SEED=-1030326562 (path 0:0:0,
//   replayPath E:B): payment-intent/plain, a customer Stripe does not have, its SDK retry met 429s, a day passes:
//   "record billing {...acct-cus_model_missing_...} still pending after 2 reconciler runs of --limit 1 over 1 stale
//   records: recovery cannot reach it", and "spend ledger holds 932836 in all, the valid billings 873036: 59800
//   reserved for billings that never happened".
// - Defect 5, a NUL failing its whole claim batch: runtime/guard/guarded-run.ts without its assertStorable calls and
//   runtime/guard/guard.ts writing claim and done batches whole (no eachAloneOnRefusal). Found by the first file before
//   the weights, "on pglite" CHARGEGUARD_MODEL_SEED=958278628 (path 1:0:0:1:0:0, replayPath AAC:F; that seed predates
//   the weights and no longer replays it), payment-intent/plain, shrunk to one command (two valid events and a NUL in
//   one batch): "the event with a nul was dead-lettered RetryAttemptsExhausted (outcome still unknown after 8 attempts
//   (limit 8): guard failed: error: unsupported Unicode escape sequence), not InvalidEvent". NOT FOUND after the
//   weights: missed by two files of two (the poison command, twice in a longer list, met too seldom with nothing else
//   faulty). Still to do: draw it likelier and record the seed.
// - Defect 6, the vault counting every currency against one cap: the budget label without its currency in
//   runtime/stripe/vault/keybrake-key-provider.ts (`${budgetName}-${billingPeriod}`, e92007a undone). Found by every
//   file that draws a keybrake cell of a flow that spends (two of two; the drain's own billings, six gbp and two eur,
//   fill one budget): after the weights, "on postgres" CHARGEGUARD_MODEL_SEED=-2042500228 (path 1:0:1, replayPath C:B),
//   payment-intent/keybrake, shrunk to no commands: "valid event acct-cus_... (201001 eur) billed 0 times, expected 1
//   (record: none; dead letter: SpendCapExceeded: ... vault key spend cap: charging 201001 would take today's spend to
//   741016, over the cap of 660000 cents)"; before them, both stores (seeds 20685173 and 427690017).
// Each fix restored, the file passes (44 s at load 0.5 before the weights; 45-90 s a file that passes with a defect
// in, 83-278 s one that finds it, shrinking included).
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
