// The instruments, created once per telemetry object from one meter.
import type { Meter } from "@opentelemetry/api";
import { durationBucketsSeconds, metricNames } from "./metric-names.js";
import { messaging } from "./semantic-conventions.js";

export type Instruments = ReturnType<typeof createInstruments>;

export function createInstruments(meter: Meter) {
  const seconds = { unit: "s", advice: { explicitBucketBoundaries: durationBucketsSeconds } };
  return {
    meter,
    outcomes: meter.createCounter(metricNames.outcomes, {
      unit: "{billing}",
      description: "Billing outcomes: charged and declined once per billing when its record turns so, the others per delivery",
    }),
    chargedAmount: meter.createCounter(metricNames.chargedAmount, {
      unit: "{minor_unit}",
      description: "Amount charged, in the currency's minor unit, counted once per billing",
    }),
    duplicatesPrevented: meter.createCounter(metricNames.duplicatesPrevented, {
      unit: "{billing}",
      description: "Second charges stopped, by who stopped them and why the duplicate delivery existed",
    }),
    retriesScheduled: meter.createCounter(metricNames.retriesScheduled, {
      unit: "{message}",
      description: "Retries re-enqueued as scheduled messages after an unknown outcome or a busy lease",
    }),
    deadLetters: meter.createCounter(metricNames.deadLetters, { unit: "{message}", description: "Messages dead-lettered, by reason" }),
    lockRenewalFailures: meter.createCounter(metricNames.lockRenewalFailures, {
      unit: "{failure}",
      description: "Message lock renewals that failed (the message will be redelivered)",
    }),
    guardOperationDuration: meter.createHistogram(metricNames.guardOperationDuration, {
      ...seconds,
      description: "Duration of the billing guard's operations (claim, record, release)",
    }),
    stripeRequestDuration: meter.createHistogram(metricNames.stripeRequestDuration, {
      ...seconds,
      description: "Duration of the flow's Stripe call, the SDK's network retries included",
    }),
    processDuration: meter.createHistogram(messaging.processDuration, { ...seconds, description: "Duration of processing one message" }),
    consumedMessages: meter.createCounter(messaging.consumedMessages, { unit: "{message}", description: "Messages delivered to the handler" }),
    spendLimit: meter.createObservableGauge(metricNames.spendLimit, { unit: "{minor_unit}", description: "The period's spend cap" }),
    spendUsage: meter.createObservableGauge(metricNames.spendUsage, {
      unit: "{minor_unit}",
      description: "The period's spend: charged plus reserved by claims in flight",
    }),
    spendUtilization: meter.createObservableGauge(metricNames.spendUtilization, { unit: "1", description: "Spend usage over the cap" }),
    pendingBillings: meter.createObservableGauge(metricNames.pendingBillings, {
      unit: "{billing}",
      description: "Billings claimed and not yet charged or declined",
    }),
    oldestPendingAge: meter.createObservableGauge(metricNames.oldestPendingAge, {
      unit: "s",
      description: "Age of the oldest pending billing (0 when none); past the reconcile threshold the reconciler must act",
    }),
  };
}
