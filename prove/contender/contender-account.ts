// The contender's Stripe account and how the workload's events travel to it and back: its customers (with declining
// twins for the flows that bill a default card), the meter for meter events, the message body in the contender's flow
// shape, and the way back from a body, a request or a hook's parsed event to the workload event it is for.
import Stripe from "stripe";
import type { AdjustableClock, StripeEmulator } from "../../sandbox/index.js";
import type { Contender } from "./contenders.js";
import { createStripeCustomers, type CustomerDirectory } from "../workload/customers.js";
import { bodyTarget, flowShape, meterEventName, type FlowShape } from "../workload/flows.js";
import { canonicalBody as canonical, eventForCharge } from "../measure/metrics.js";
import type { BodyOf } from "../workload/producer.js";
import { sandboxStripeKey } from "./contender-sandbox.js";
import type { Workload, WorkloadEvent } from "../workload/workload.js";

export interface ContenderAccount {
  /** The contender's flow: its message bodies, its money-moving requests, where its ground truth is read. */
  shape: FlowShape;
  directory: CustomerDirectory;
  /** The body the workload first sends: in the flow's shape, or (PaymentIntents) the workload's own, translated. */
  sendBodyOf: BodyOf | undefined;
  /** The body the producer re-sends 25 h later for an unrecorded event. */
  resendBodyOf: BodyOf;
  /** The workload body a dead-lettered flow-shaped body was sent for (absent for PaymentIntents: theirs is the workload's). */
  workloadBody: ((body: unknown) => unknown) | undefined;
  /** The workload event a Stripe customer and amount are for. */
  eventOf(stripeCustomer: unknown, amount: unknown): WorkloadEvent | undefined;
  /** The workload event of any flow's body: a message body, or a hook's parsed event. */
  eventOfBody(body: unknown): WorkloadEvent | undefined;
}

export async function prepareContenderAccount(contender: Contender, workload: Workload, stripe: StripeEmulator, clock: AdjustableClock): Promise<ContenderAccount> {
  const operator = new Stripe(sandboxStripeKey, { ...stripe.stripeConfig, maxNetworkRetries: 2 });
  const shape = flowShape(contender.flow);
  const decliningCustomers = workload.events.filter((event) => event.kind === "decline").map((event) => event.stripeCustomerId);
  const directory = await createStripeCustomers(
    operator,
    workload.stripeCustomerIds,
    shape.defaultSource ? { defaultCards: { decliningTwins: decliningCustomers } } : {},
  );
  if (contender.flow === "meter-event") {
    await operator.billing.meters.create({ display_name: "Billed usage", event_name: meterEventName, default_aggregation: { formula: "sum" } });
  }
  // Meter events must be stamped within Stripe's past 35 days: an hour before the run, whenever it is sent.
  const timestampSeconds = Math.floor(clock.now() / 1000) - 3_600;
  const workloadBodies = new Map<string, unknown>();
  const bodyOf = (event: WorkloadEvent): unknown => {
    const body = shape.body(event, timestampSeconds);
    const translated =
      shape.defaultSource && event.kind === "decline" && body !== null && typeof body === "object"
        ? { ...body, stripeCustomerId: directory.toStripeDeclining(event.stripeCustomerId) }
        : directory.bodyToStripe(body);
    workloadBodies.set(canonical(translated), event.body);
    return translated;
  };
  const eventOf = (stripeCustomer: unknown, amount: unknown): WorkloadEvent | undefined => {
    const customer = typeof stripeCustomer === "string" ? directory.toWorkload(stripeCustomer) : undefined;
    const cents = typeof amount === "string" || typeof amount === "number" ? Number(amount) : NaN;
    return customer === undefined || !Number.isInteger(cents) ? undefined : eventForCharge(workload, customer, cents);
  };
  const paymentIntents = contender.flow === "payment-intent";
  return {
    shape,
    directory,
    sendBodyOf: paymentIntents ? undefined : bodyOf,
    resendBodyOf: (event) => (paymentIntents ? directory.bodyToStripe(event.body) : bodyOf(event)),
    workloadBody: paymentIntents ? undefined : (body: unknown) => workloadBodies.get(canonical(decoded(body))),
    eventOf,
    eventOfBody: (body) => {
      const target = bodyTarget(body);
      return eventOf(target.customer, target.amount);
    },
  };
}

/** A body as the queue hands it back (bytes decoded), for matching against what was sent. */
function decoded(body: unknown): unknown {
  return Buffer.isBuffer(body) || body instanceof Uint8Array ? Buffer.from(body).toString("utf8") : body;
}
