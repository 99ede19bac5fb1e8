// Give-up for an event whose dependency is down is a deadline, not a count: the first delivery's expiry (its
// time-to-live), carried by every retry in `chargeguard-deadline`, and each retry sent to expire at the same instant.
// Waits (a dependency throttled or down) are counted in `chargeguard-waits` only to vary the retry's messageId and
// backoff; they never count toward `maxAttempts`.
import type { ServiceBusReceivedMessage } from "@azure/service-bus";

export const deadlineProperty = "chargeguard-deadline";
export const waitsProperty = "chargeguard-waits";

/** Without a time-to-live on the message: 14 days from its first enqueue (Service Bus Basic's longest TTL). */
export const defaultEventDeadlineMs = 14 * 86_400_000;

/** A TTL past this is "never expires" (the SDK shows TimeSpan.MaxValue as a date in year 9999). */
const neverExpires = 10 * 365 * 86_400_000;

type Properties = ServiceBusReceivedMessage["applicationProperties"];

/** When this event stops being worth billing (epoch ms). */
export function deadlineOf(message: Pick<ServiceBusReceivedMessage, "applicationProperties" | "enqueuedTimeUtc" | "expiresAtUtc">, defaultMs = defaultEventDeadlineMs): number {
  const carried = message.applicationProperties?.[deadlineProperty];
  if (typeof carried === "number" && Number.isFinite(carried)) return carried;
  const enqueued = message.enqueuedTimeUtc?.getTime() ?? Date.now();
  const expires = message.expiresAtUtc?.getTime();
  return expires !== undefined && Number.isFinite(expires) && expires - enqueued < neverExpires ? expires : enqueued + defaultMs;
}

/** How many waits this event's chain has had. */
export function waitsOf(properties: Properties): number {
  const value = properties?.[waitsProperty];
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}
