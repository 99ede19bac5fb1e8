// Without a registered SDK the telemetry is a true no-op: the consumer's parts come back unwrapped (a delivery gets
// the very parts it was given), so a consumer without telemetry pays nothing for it. With any real provider it instruments.
import { createNoopMeter, ProxyTracerProvider } from "@opentelemetry/api";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import type { GuardStore } from "../../../runtime/guard/guard-store.js";
import type { MessageSettler, RetryScheduler } from "../../../runtime/handler/billing-handler.js";
import { createBillingTelemetry } from "../../../runtime/telemetry/billing-telemetry.js";

const noopMeters = { getMeter: () => createNoopMeter() };
const store = {} as GuardStore<never>;
const settler = {} as MessageSettler;
const scheduler = {} as RetryScheduler;

describe("telemetry without an SDK", () => {
  it("hands every part back unwrapped and runs the work as it is", async () => {
    const telemetry = createBillingTelemetry({ meterProvider: noopMeters, tracerProvider: new ProxyTracerProvider() });
    expect(telemetry.enabled).toBe(false);
    expect(telemetry.instrumentStore(store)).toBe(store);
    const slot = <T>(work: () => Promise<T>) => work();
    const parts = { settler, scheduler, ports: { store, stripeSlot: slot } };
    let given: unknown;
    await telemetry.processMessage({ body: {} } as never, "q", parts, async (own) => {
      given = own;
    });
    expect(given).toBe(parts);
  });

  it("instruments as soon as either provider is real", async () => {
    expect(createBillingTelemetry({ meterProvider: new MeterProvider(), tracerProvider: new ProxyTracerProvider() }).enabled).toBe(true);
    const traced = createBillingTelemetry({ meterProvider: noopMeters, tracerProvider: new BasicTracerProvider() });
    expect(traced.enabled).toBe(true);
    expect(traced.instrumentStore(store)).not.toBe(store);
    const parts = { settler, scheduler, ports: { store } };
    await traced.processMessage({ body: {} } as never, "q", parts, async (own) => {
      expect(own).not.toBe(parts);
      expect(own.ports.store).not.toBe(store);
      expect(own.settler).not.toBe(settler);
    });
  });
});
