// The proving ground's bodies per flow fit the schema of that flow's generated consumer (src/event.ts of
// `chargeguard new consumer --flow X`): every valid workload event parses, every malformed one is refused, and each
// body still names the event's customer and unique amount (how requests, hooks and the ledger are traced back).
import { describe, expect, it } from "vitest";
import { billingEventSchema as chargeSchema } from "../../examples/generated-consumer-charge/src/event.js";
import { billingEventSchema as invoiceSchema } from "../../examples/generated-consumer-invoice/src/event.js";
import { billingEventSchema as meterEventSchema } from "../../examples/generated-consumer-meter-event/src/event.js";
import { bodyTarget, flowShape } from "../../prove/workload/flows.js";
import { generateWorkload } from "../../prove/workload/workload.js";

const workload = generateWorkload({ events: 600, seed: 3 });
const timestamp = 1_790_000_000;
const schemas = { charge: chargeSchema, invoice: invoiceSchema, "meter-event": meterEventSchema } as const;

describe.each(Object.entries(schemas))("the %s flow's bodies", (flow, schema) => {
  const shape = flowShape(flow as keyof typeof schemas);

  it("parse under the generated consumer's schema for every valid event, and name its customer and amount", () => {
    const valid = workload.events.filter((event) => event.expected !== "dead-lettered");
    expect(valid.length).toBeGreaterThan(500);
    for (const event of valid) {
      const body = shape.body(event, timestamp);
      expect(schema.safeParse(body).success, `${event.id}: ${JSON.stringify(body)}`).toBe(true);
      expect(bodyTarget(body)).toEqual({ customer: event.stripeCustomerId, amount: event.amountCents });
    }
  });

  it("are refused by that schema for every malformed event", () => {
    const malformed = workload.events.filter((event) => event.expected === "dead-lettered");
    expect(malformed.length).toBeGreaterThan(10);
    for (const event of malformed) {
      const body = shape.body(event, timestamp);
      const parsed = typeof body === "string" ? undefined : schema.safeParse(body);
      if (typeof body === "string") expect(() => JSON.parse(body), event.id).toThrow();
      else expect(parsed?.success, `${event.id} (${event.malformation})`).toBe(false);
    }
  });
});
