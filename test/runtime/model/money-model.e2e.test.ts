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
// The large size is money-model-matrix.e2e.test.ts; the fault paths written out, money-model-faults.e2e.test.ts.
//
// Issue 41's defects 2, 3 and 5, each reintroduced (not committed), then this file run as `npm test` runs it; each was
// found by a drawn run, and the seed replays it (CHARGEGUARD_MODEL_SEED=<seed> ... -t "<test>", fast-check rebuilds
// the same runs; the shrunk counterexample is printed with its own path):
// - Defect 2 (the pause after a refused key probes with the plain key and a PaymentIntents read): the probe in
//   runtime/consumer/message-intake.ts made again as before b29c9a9 (`stripeFor(options.stripe.apiKey)` and
//   `paymentIntents.list`, only when STRIPE_API_KEY is set). CHARGEGUARD_MODEL_SEED=-1347403571, "on postgres":
//   payment-intent/postgres/keybrake+plain, the key refused (403) with a billing waiting, healed; "the fleet did not
//   drain the queue within 30000 ms of every fault healed: {"active":3,...}" (the vault refuses the plain key for ever).
// - Defect 3 (the breakers' probes ask the vault for the calendar month's key): both probes in
//   runtime/consumer/consumer-resilience.ts asking `keys.keyFor(calendarBilling(...))` again instead of `billedKey`.
//   CHARGEGUARD_MODEL_SEED=163325401, "on postgres": invoice/postgres/keybrake, the month turns, then a vault outage
//   opens the breakers while last month is billed; "billing 2026-11 in arrears: 0 of 6 billed within 15000 ms of the
//   vault outage ending (a breaker's probe refused?)".
// - Defect 5 (a NUL fails the whole claim batch): runtime/guard/guarded-run.ts without its assertStorable calls and
//   runtime/guard/guard.ts writing claim and done batches whole (no eachAloneOnRefusal). CHARGEGUARD_MODEL_SEED=
//   -1255955842, "on pglite", and 341504586, "on postgres": payment-intent/plain, shrunk to one command (valid events
//   and a NUL in one batch); "the event with a nul was dead-lettered RetryAttemptsExhausted (outcome still unknown
//   after 8 attempts (limit 8): guard failed: error: unsupported Unicode escape sequence), not InvalidEvent".
// Each was found on the first run of the file after its reintroduction, once the key, arrears and poison commands
// were drawn two or three times as often as one other command and the key command sent a billing of its own (before
// that, defect 2 went unseen in one run: the refused key was seldom met). The seeds are reported by fast-check; a
// different seed finds each with lower odds (measured once each, not a rate).
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
// Defects 1, 4 and 6 of #41, each reintroduced in a local checkout (never committed) and found by this file at this
// size (the seed is the failing test's; replay as above, the path and replayPath as printed):
// - Defect 1, a record forgotten although an SDK retry of its request may have reached Stripe: `maybeSent: false` in
//   place of `sends.maybeSent()` in runtime/guard/guarded-run.ts (the fix of a42a659 undone: "nothing sent" judged
//   per call). Found by "on pglite" with CHARGEGUARD_MODEL_SEED=-1209174555 (path 0, replayPath C:B): meter-event,
//   a send and then an SDK retry that met 429s after its first try, a day passing (model-retry-refused.ts): "valid
//   event acct-cus_... (235500 eur) billed 2 times, expected 1 (record: done; dead letter: none)" and "2 billed
//   meter-event objects at Stripe under one key billing:v1:... (one meter event per identifier broken)"; and by "on
//   postgres" with CHARGEGUARD_MODEL_SEED=114964167 (path 0, replayPath EB:B), the charge flow through the vault:
//   "after an SDK retry met 429s after its first try (valid, 519, eur), then a day passes: valid event for cus_...
//   billed 2 times".
// - Defect 4, the reconciler takes the oldest pending first and never moves unsettleable records out of its way: the
//   condition of `guard.holdUnsettleable` in runtime/operator/reconcile.ts made false (6a8f0ed undone). Found by "on
//   postgres" with CHARGEGUARD_MODEL_SEED=-631586911 (path 1:0:0:1, replayPath D:B): payment-intent, a customer
//   Stripe does not have, its SDK retry met 429s, a day passes: "record billing {...acct-cus_model_missing_...}
//   still pending after 2 reconciler runs of --limit 1 over 1 stale records: recovery cannot reach it", the same
//   record "still pending after the drain and the reconciler (101300 reserved)" and "spend ledger holds 842322 in all,
//   the valid billings 741022: 101300 reserved for billings that never happened". Two files of two missed it with the
//   retry-refused command drawn as often as any other; drawn twice as often, the third file found it.
// - Defect 6, the vault counts every currency against one cap: the budget label without its currency in
//   runtime/stripe/vault/keybrake-key-provider.ts (`${budgetName}-${billingPeriod}`, e92007a undone). Found by "on
//   pglite" with CHARGEGUARD_MODEL_SEED=-1458783413 (path 0:0:1:1, replayPath BAE:F), shrunk to no commands at all:
//   any keybrake cell of a flow that spends fails on the drain's own billings (six gbp, two eur: one budget): "valid event
//   acct-cus_... (201001 eur) billed 0 times, expected 1 (record: none; dead letter: SpendCapExceeded: ... vault key
//   spend cap: charging 201001 would take today's spend to 741016, over the cap of 660000 cents)". Found once the
//   vault's keys were sized above the guard's caps (model-world.ts, `vaultExpectedCents`: before, the model sized them
//   at the 10,000,000 default cap and the vault never refused) and a cap refusal had to be one its own (period,
//   currency) explains (model-event-match.ts, capCouldRefuse); two files missed it before.
// Each fix restored, the file passes (47 s at load 2-7).
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
