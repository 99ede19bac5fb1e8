// How the seeds read a billing event: `json.loads(str(msg))` and trust it. No validation, on purpose: the broken
// examples are faithful to the seeds, and a malformed body fails later (inside Stripe or the database).
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import type { UsageEvent } from "../../../runtime/index.js";

export function readUsageEvent(message: ServiceBusReceivedMessage): UsageEvent {
  const body: unknown = message.body;
  if (typeof body === "string") return JSON.parse(body) as UsageEvent;
  if (body instanceof Uint8Array) return JSON.parse(Buffer.from(body).toString("utf8")) as UsageEvent;
  return body as UsageEvent;
}
