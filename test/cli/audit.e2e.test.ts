// `chargeguard audit` as an operator runs it (the built CLI, spawned) against the Stripe emulator: its exit codes,
// its three formats, and `--refund --yes` run twice refunding each certain duplicate exactly once.
import { createServer, type AddressInfo, type Socket } from "node:net";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "../../sandbox/stripe/index.js";
import { buildAccountElsewhere, type AccountTruth } from "../runtime/audit/account-built-elsewhere.js";
import { buildCli, runCli, type BuiltCli } from "../support/built-cli.js";

let cli: BuiltCli;
let emulator: StripeEmulator;
let truth: AccountTruth;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  cli = buildCli();
  emulator = await startStripeEmulator();
  env = { STRIPE_API_KEY: "rk_test_sandbox", STRIPE_API_BASE: emulator.apiBase };
  truth = await buildAccountElsewhere(new Stripe("rk_test_sandbox", { ...emulator.stripeConfig, maxNetworkRetries: 0 }), emulator.clock);
}, 180_000);
afterAll(async () => {
  cli?.remove();
  await emulator?.stop();
});

const audit = (args: string[], extraEnv: Record<string, string | undefined> = {}) => runCli(cli, ["audit", "--key", "metadata.usage_id", "--rate", "200", ...args], { env: { ...env, ...extraEnv } });

interface JsonReport {
  groups: { confidence: string; keep: string; duplicates: string[]; to_refund: number }[];
  resolved: { refunded: string }[];
  summary: { customers: number; to_refund: Record<string, number> };
}

describe("chargeguard audit", () => {
  it("documents its exit codes in --help", async () => {
    const run = await runCli(cli, ["audit", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Exit codes:\n +0 +no duplicate left: none found, or --refund --yes refunded every one\n +1 +duplicates left to refund/);
    expect(run.stdout).toContain("refuses a live secret key (sk_live_...)");
  });

  it("answers usage and access errors with exit 2 naming the problem", async () => {
    expect(await audit(["--flow", "subscriptions"])).toMatchObject({ code: 2 });
    expect((await audit(["--window", "soon"])).stderr).toContain('chargeguard audit: --window "soon" is invalid; allowed: a duration such as 90s, 30m, 1h or 2d');
    expect((await audit(["--yes"])).stderr).toContain("--yes only confirms --refund");
    const noKey = await audit([], { STRIPE_API_KEY: undefined });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("audit needs STRIPE_API_KEY");
    // A key the emulator refuses, put together at run time so no key-shaped literal sits in the repository.
    const refused = await audit([], { STRIPE_API_KEY: ["pk", "test", "notasecretkey000000"].join("_") });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("Stripe refused STRIPE_API_KEY");
    expect(refused.stderr).not.toContain("notasecretkey");
    // A live secret key without --refund: refused before any request, the key itself never printed.
    const secret = await audit([], { STRIPE_API_KEY: ["sk", "live", "notasecretkey000000"].join("_") });
    expect(secret.code).toBe(2);
    expect(secret.stderr).toContain("audit only reads without --refund: give a restricted live key (rk_...) with read access, not a live secret key (sk_...)");
    expect(secret.stderr).not.toContain("notasecretkey");
    // The same key with a space or tab before it is the same key (#44): refused without --refund, and with --refund
    // never sent to an https host that is not Stripe's.
    for (const spaced of [` ${["sk", "live", "notasecretkey000000"].join("_")}`, `\t${["sk", "live", "notasecretkey000000"].join("_")}`]) {
      const readOnly = await audit([], { STRIPE_API_KEY: spaced });
      expect(readOnly.code, readOnly.stderr).toBe(2);
      expect(readOnly.stderr).toContain("audit only reads without --refund");
      const elsewhere = await audit(["--refund", "--stripe-api-base", "https://127.0.0.1:9"], { STRIPE_API_KEY: spaced });
      expect(elsewhere.code, elsewhere.stderr).toBe(2);
      expect(elsewhere.stderr).toContain("is not https://api.stripe.com: a live Stripe key goes only there");
      expect(elsewhere.stderr + readOnly.stderr).not.toContain("notasecretkey");
    }
  });

  it("an unreachable Stripe is one line naming the URL, exit 2, within 5 s of the first try (was 31.5 s, eight tries, no URL)", async () => {
    // A port nothing listens on (refused at once), and a server that accepts and never answers (each try times out).
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      for (const origin of [`http://127.0.0.1:${closed}`, `http://127.0.0.1:${(silent.address() as AddressInfo).port}`]) {
        const started = Date.now();
        const run = await audit([], { STRIPE_API_BASE: origin });
        const seconds = (Date.now() - started) / 1000;
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toMatch(new RegExp(`^chargeguard audit: Stripe unreachable at ${origin} \\(set by --stripe-api-base or STRIPE_API_BASE\\): no answer within 5 s`));
        expect(run.stderr.trim().split("\n"), run.stderr).toHaveLength(1);
        // 5 s and the CLI's own start (a few seconds on a loaded machine).
        expect(seconds, run.stderr).toBeLessThan(12);
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 60_000);

  it("exits 1 with the groups in JSON, one row per duplicate in CSV, totals per currency in text", async () => {
    const json = await audit(["--format", "json"]);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as JsonReport;
    const certain = report.groups.filter((g) => g.confidence === "certain").flatMap((g) => g.duplicates);
    expect(new Set(certain)).toEqual(new Set(truth.certain.keys()));
    expect(report.resolved.map((r) => r.refunded)).toEqual([...truth.resolved]);
    const csv = await audit(["--format", "csv"]);
    expect(csv.stdout.trim().split("\n")).toHaveLength(1 + truth.certain.size + truth.likely.size);
    const text = await audit([]);
    const usd = (report.summary.to_refund["usd"] ?? 0) / 100;
    expect(text.stdout).toContain(`${report.summary.customers} customers charged twice, ${usd.toFixed(2)} USD to refund`);
  });

  it("warns when no payment carries --key (a mistyped path found nothing certain, silently), and only then", async () => {
    const wrong = await runCli(cli, ["audit", "--key", "metadata.usageid", "--rate", "200", "--format", "json"], { env });
    expect(wrong.stderr).toMatch(/^chargeguard audit: warning: none of the \d+ payment\(s\) read carries --key metadata\.usageid: no duplicate can be certain/);
    expect((JSON.parse(wrong.stdout) as JsonReport).groups.filter((g) => g.confidence === "certain")).toEqual([]);
    expect((await audit(["--format", "json"])).stderr).not.toContain("warning");
  });

  it("exits 0 for a customer charged once", async () => {
    const [bobsBill] = [...truth.innocent];
    const intent = await new Stripe("rk_test_sandbox", { ...emulator.stripeConfig }).paymentIntents.retrieve(bobsBill as string);
    const clean = await audit(["--customer", intent.customer as string]);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain("no customer charged twice");
  });

  it("--refund prints the plan; --refund --yes twice refunds each certain duplicate once and nothing else", async () => {
    const plan = await audit(["--refund"]);
    expect(plan.stdout).toContain(`${truth.certain.size} refund(s) planned: run again with --yes`);
    expect(emulator.ledger.refunds().filter((r) => r.reason === "duplicate")).toEqual([]);
    const before = JSON.parse((await audit(["--format", "json"])).stdout) as JsonReport;
    const certainMinor = before.groups.filter((g) => g.confidence === "certain").reduce((sum, g) => sum + g.to_refund, 0);
    const likelyMinor = (before.summary.to_refund["usd"] ?? 0) - certainMinor;
    const first = await audit(["--refund", "--yes"]);
    // It says what it refunded and what is left (the likely duplicates, refunded only when named), and exits 1 for them.
    expect(first.stdout).toContain(`${truth.certain.size} refund(s) made, 0 failed`);
    expect(first.stdout).toContain(`${(certainMinor / 100).toFixed(2)} USD refunded by this run, ${(likelyMinor / 100).toFixed(2)} USD left to refund (certain 0.00 USD, likely`);
    expect(first.stdout).toContain(`${truth.likely.size} duplicate(s) left: a likely one is refunded only when named (--refund-ids)`);
    expect(first.code).toBe(1);
    const second = await audit(["--refund", "--yes", "--format", "json"]);
    expect((JSON.parse(second.stdout) as { refunds: unknown[] }).refunds).toEqual([]);
    const refunded = emulator.ledger.refunds().filter((r) => r.reason === "duplicate").map((r) => r.metadata["duplicate_payment"]);
    expect(refunded.sort()).toEqual([...truth.certain.keys()].sort());
    // Naming the likely ones refunds everything left: nothing left, exit 0 (it said '... to refund' and exited 1).
    const last = await audit(["--refund", "--yes", "--refund-ids", [...truth.likely.keys()].join(",")]);
    expect(last.stdout).toContain(`${(likelyMinor / 100).toFixed(2)} USD refunded by this run, nothing left to refund`);
    expect(last.stdout).not.toMatch(/USD to refund/);
    expect(last.code, last.stdout).toBe(0);
  });
});

describe("chargeguard audit and disputes", () => {
  it("--refund --yes twice: the control refunded once, a lost dispute's twin and an open dispute's duplicate never; exit 1 while a dispute holds a group", async () => {
    const disputes = await startStripeEmulator();
    try {
      const stripe = new Stripe("rk_test_sandbox", { ...disputes.stripeConfig, maxNetworkRetries: 0 });
      const pay = async (customer: string, usageId: string, paymentMethod = "pm_card_visa") =>
        (await stripe.paymentIntents.create({ amount: 990, currency: "usd", customer, payment_method: paymentMethod, confirm: true, off_session: true, metadata: { usage_id: usageId } })).id;
      const [lostCustomer, openCustomer, controlCustomer] = await Promise.all([0, 1, 2].map(async () => (await stripe.customers.create({})).id));
      const lost = await pay(lostCustomer as string, "u-lost", "pm_card_createDispute");
      await pay(lostCustomer as string, "u-lost");
      await stripe.disputes.close((await stripe.disputes.list({ payment_intent: lost })).data[0]?.id ?? "");
      await pay(openCustomer as string, "u-open");
      const openDuplicate = await pay(openCustomer as string, "u-open", "pm_card_createDispute");
      await pay(controlCustomer as string, "u-control");
      const controlDuplicate = await pay(controlCustomer as string, "u-control");
      const run = () => audit(["--refund", "--yes", "--format", "json"], { STRIPE_API_BASE: disputes.apiBase });
      const first = await run();
      const second = await run();
      expect([first.code, second.code]).toEqual([1, 1]);
      const report = JSON.parse(second.stdout) as { disputed: { duplicates: string[] }[]; resolved: { refunded: string; dispute?: string }[]; refunds: unknown[] };
      expect(report.disputed.map((group) => group.duplicates)).toEqual([[openDuplicate]]);
      expect(report.resolved.map((resolved) => [resolved.refunded, resolved.dispute !== undefined]).sort()).toEqual([[controlDuplicate, false], [lost, true]].sort());
      expect(report.refunds).toEqual([]);
      expect(disputes.ledger.refunds().map((refund) => refund.payment_intent)).toEqual([controlDuplicate]);
    } finally {
      await disputes.stop();
    }
  });
});
