// The readable plan (`chargeguard plan` without --json): units on every figure, role names instead of role ids,
// each queue's throughput, alerts in words, a summary first and the details after it. The dev and prod stacks run
// through the real program under mocks (as the CLI does); the figures are recomputed here from first principles.
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { builtInRoles } from "../../infra/specs/index.js";
import { loadStackConfig } from "../../infra/config/index.js";
import { formatPlan } from "../../infra/plan/format-plan.js";
import { figure, isoSpan, rate, seconds, span } from "../../infra/plan/plan-units.js";
import { queueThroughput } from "../../infra/plan/queue-throughput.js";
import { roleName } from "../../infra/plan/role-names.js";
import { planStack, type Plan } from "../../infra/plan/run-plan.js";

const fixture = fileURLToPath(new URL("../fixtures/stacks/Pulumi.invoicing.yaml", import.meta.url));

describe("units", () => {
  it("says seconds, spans and rates with their unit", () => {
    expect([seconds(207_000), seconds(103_500), seconds(361_500)]).toEqual(["207 s", "103.5 s", "361.5 s"]);
    expect([span(210_000), span(8_460_000), span(1_209_600_000), span(86_400_000)]).toEqual(["3 min 30 s", "2 h 21 min", "14 days", "1 day"]);
    expect([isoSpan("PT15M"), isoSpan("PT3M30S"), isoSpan("P14D"), isoSpan("not a duration")]).toEqual(["15 min", "3 min 30 s", "14 days", "not a duration"]);
    expect([rate(4, "messages"), rate(0.174, "messages"), rate(1 / 103.5, "messages")]).toEqual(["4 messages/s", "10.4 messages/min", "0.58 messages/min"]);
    expect([figure(1_000_000_000), figure(0.0726)]).toEqual(["1000000000", "0.073"]);
  });
});

describe("role names", () => {
  it("names every built-in role the program assigns, from a bare id or a full role definition id, in any case", () => {
    expect(roleName(builtInRoles.serviceBusDataReceiver)).toBe("Azure Service Bus Data Receiver");
    expect(roleName(`/subscriptions/0/providers/Microsoft.Authorization/roleDefinitions/${builtInRoles.serviceBusDataSender.toUpperCase()}`)).toBe("Azure Service Bus Data Sender");
    const names = Object.values(builtInRoles).map(roleName);
    expect(names).toEqual(["Azure Service Bus Data Receiver", "Azure Service Bus Data Sender", "Azure Service Bus Data Owner", "AcrPull", "Key Vault Secrets User", "Monitoring Metrics Publisher"]);
    expect(roleName("3913510d-42f4-4e42-8a64-420c390055eb")).toBe("Monitoring Metrics Publisher");
    // An id the table lacks is shown, never dropped.
    expect(roleName("/x/roleDefinitions/11111111-2222-3333-4444-555555555555")).toBe("role 11111111-2222-3333-4444-555555555555");
  });
});

describe("queue throughput", () => {
  it("is the replica's Stripe calls per second over the flow's calls per message, times max replicas", () => {
    const prod = loadStackConfig({ stack: "prod" });
    const usage = prod.app?.consumers.find((c) => c.queue === "usage-billing");
    const queue = prod.queues.find((q) => q.name === "usage-billing");
    if (!usage || !queue) throw new Error("prod has no usage-billing consumer");
    const t = queueThroughput(usage, 1, queue.tuning.deliveryBudgetMs);
    // 1 Stripe slot x 1000 / 250 ms = 4 calls/s = 4 messages/s; 2 replicas; at worst one message per 103.5 s.
    expect(t).toMatchObject({ perReplicaPerSecond: 4, maxReplicas: 2, atMaxReplicasPerSecond: 8, stripeBudgetPerSecond: 20, stripeSlots: 1, messagesInFlight: 2 });
    expect(t.slowestPerReplicaPerSecond).toBeCloseTo(1 / 103.5, 10);
  });

  it("counts every Stripe call of a multi-call flow (an invoice is 23)", () => {
    const invoicing = loadStackConfig({ configFile: fixture });
    const consumer = invoicing.app?.consumers[0];
    const queue = invoicing.queues[0];
    if (!consumer || !queue) throw new Error("the invoicing fixture has no consumer");
    const t = queueThroughput(consumer, 23, queue.tuning.deliveryBudgetMs);
    expect(t.perReplicaPerSecond).toBeCloseTo(4 / 23, 10);
    expect(t.slowestPerReplicaPerSecond).toBeCloseTo(1 / 23 / (queue.tuning.deliveryBudgetMs / 1000), 10);
  });
});

describe("the rendered plan", () => {
  let dev: Plan;
  let prod: Plan;
  let invoicing: Plan;
  beforeAll(async () => {
    dev = await planStack({ stack: "dev" });
    prod = await planStack({ stack: "prod" });
    invoicing = await planStack({ configFile: fixture });
  });

  it("prints a short summary by default, one screen per environment, and the details only on request after it", () => {
    for (const plan of [dev, prod]) {
      const summary = formatPlan(plan);
      const lines = summary.split("\n");
      expect(lines.length).toBeLessThanOrEqual(50);
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(120);
      expect(summary).not.toContain("DETAILS");
      expect(lines.at(-1)).toMatch(/^More with --details: /);
      const details = formatPlan(plan, { details: true });
      // The summary comes first, unchanged, then the details.
      expect(details.startsWith(lines.slice(0, -1).join("\n"))).toBe(true);
      expect(details.indexOf("DETAILS")).toBeGreaterThan(summary.indexOf("Queue usage-billing"));
    }
  });

  it("puts a unit on every timing and rate, with no milliseconds or ISO 8601 durations in the summary", () => {
    const text = formatPlan(prod);
    // Only the fastest-call assumption is in milliseconds ("250 ms"): no "753000 ms" figures.
    expect(text).not.toMatch(/\d{4,}\s*ms\b/);
    expect(text).not.toMatch(/\bPT\d|\bP\d+D\b/);
    expect(text).toContain("lock         210 s, no renewal: covers a 207 s hold (delivery budget 103.5 s x 2 for a Stripe slot)");
    expect(text).toContain("lock         300 s, renewed for up to 753 s: covers a 376.5 s hold (delivery budget 376.5 s)");
    expect(text).toContain("Stripe       91.5 s worst case per call (3 attempts x 30 s), delivery budget 103.5 s (+ 12 s processing and margin)");
    expect(text).toContain("Stripe       361.5 s worst case per call (3 attempts x 80 s, 120 s 3-D Secure wait),");
    expect(text).toContain("10 at most, then dead-lettered, time to live 14 days");
    expect(text).toContain("max_connections 400 (20 reserved; the apps use up to 104 in a rollout)");
    expect(text).toContain("80 requests/s for billing (0.8 x 100 per account), 20 per app (0.8 x 25 per endpoint), calls from 250 ms");
  });

  it("gives each queue its throughput per replica and at max replicas", () => {
    const text = formatPlan(prod);
    const throughput = text.split("\n").filter((line) => line.startsWith("  throughput"));
    expect(throughput).toEqual([
      "  throughput   4 messages/s per replica, 8 messages/s at max replicas (2); worst case 0.58 messages/min per replica",
      "  throughput   4 messages/s per replica, 8 messages/s at max replicas (2); worst case 0.16 messages/min per replica",
      // The stack's line under Service: both queues together, and what they ask of the account's billing budget.
      "  throughput   16 messages/s at max replicas over 2 queues, using 16 Stripe requests/s of the 80 requests/s for billing",
    ]);
    // An invoice is 23 Stripe calls: 4 calls/s per replica drain 10.4 invoices a minute; its lock covers all 23.
    const invoice = formatPlan(invoicing);
    expect(invoice).toContain("Queue invoice-billing: invoice flow, 23 Stripe calls per message");
    expect(invoice).toMatch(/ {2}throughput {3}10\.4 messages\/min per replica, 10\.4 messages\/min at max replicas \(1\);\s+worst case 0\.43 messages\/min per replica/);
    // 23 calls a message: 10.4 invoices a minute cost 4 Stripe requests/s of the stack's 20.
    expect(invoice).toMatch(/ {2}throughput {3}10\.4 messages\/min at max replicas over 1 queue,\s+using 4 Stripe requests\/s of the 20 requests\/s for billing/);
    expect(invoice).toContain("3 s worst case per call (1 attempt x 3 s)");
    expect(invoice).toContain("covers a 276 s hold (delivery budget 6 s x 23 Stripe calls x 2 for a Stripe slot)");
    // Dev's consumer has 2 Stripe slots: 8 calls/s per replica, one replica.
    expect(formatPlan(dev)).toContain("8 messages/s per replica, 8 messages/s at max replicas (1); worst case 1.2 messages/min per replica");
  });

  it("names roles by their built-in name beside the principal, and the scope in the details", () => {
    const summary = formatPlan(prod);
    for (const guid of Object.values(builtInRoles)) expect(summary).not.toContain(guid);
    expect(summary).toContain("id-usage-billing-consumer (consumer): Azure Service Bus Data Receiver + Azure Service Bus Data Sender");
    expect(summary).toContain("id-usage-billing-consumer-scaler (KEDA scaler): Azure Service Bus Data Owner");
    expect(summary).toContain("producer 00000000-0000-0000-0000-000000000002: Azure Service Bus Data Sender");
    expect(summary).toMatch(/operators 00000000-0000-0000-0000-000000000004: Azure Service Bus Data Receiver \+\s+Azure Service Bus Data Sender/);
    const details = formatPlan(prod, { details: true });
    // 16 for the queues, the registry and the vault, and one Monitoring Metrics Publisher per consumer identity.
    expect(details).toMatch(/Role assignments \(18\)/);
    expect(details).toMatch(/Monitoring Metrics Publisher\s+id-usage-billing-consumer \(consumer\)/);
    expect(details).toMatch(/Azure Service Bus Data Owner\s+id-invoice-settlement-consumer-scaler \(KEDA scaler\)\s+queue invoice-settlement/);
    expect(details).toMatch(/AcrPull\s+id-chargeguard-audit \(nightly audit\)\s+registry crbillingprod/);
    expect(details).toMatch(/Key Vault Secrets User\s+id-usage-billing-consumer \(consumer\)\s+secret stripe-api-key in vault kv-billing-prod-cg/);
    // Dev's local auth: the queue-level SAS rules with their rights.
    expect(formatPlan(dev)).toContain("SAS rule usage-billing-consumer: Listen + Send");
  });

  it("says each alert's signal and threshold in words: by severity in the summary, every one with its window in the details", () => {
    const summary = formatPlan(prod);
    expect(summary).toContain("sev 0 critical: dead letters above 0 messages (again every 15 min while true);");
    expect(summary).toMatch(/sev 2 warning: backlog above 1000 messages,/);
    const details = formatPlan(prod, { details: true });
    expect(details).toContain("sb-billing-prod-usage-billing-backlog (sev 2 warning) on queue usage-billing on sb-billing-prod");
    expect(details).toContain("fires on the average backlog above 1000 messages over 15 min, checked every 1 min; platform metric ActiveMessages");
    expect(details).toContain("fires on the highest oldest pending billing above 753 s over 15 min, checked every 5 min");
    expect(details).toContain("fires on the highest spend cap used above 90% over 15 min");
    expect(details).toContain("fires on the highest running replicas below 1 replica over 5 min");
    // The derivations moved to the details, not lost.
    expect(details).toContain("maxReplicas 2: Stripe allows 2 (20 calls/s budget / 4 calls/s per replica");
    expect(details).toContain("max_connections is static: it applies only after a server restart");
    expect(details).toContain("Operator: with Key Vault Secrets Officer on kv-billing-prod-cg");
  });
});
