import { describe, expect, it } from "vitest";
import { parseTraceparent, producerLinks } from "../../../runtime/telemetry/producer-link.js";
import { deliverySource } from "../../../runtime/telemetry/delivery-source.js";

describe("producer link (Diagnostic-Id)", () => {
  it("reads a W3C traceparent as a remote span context", () => {
    expect(parseTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")).toEqual({
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      traceFlags: 1,
      isRemote: true,
    });
  });

  it.each([
    ["absent", undefined],
    ["not a string", 42],
    ["a legacy Request-Id", "|4bf92f3577b34da6a3ce929d0e0e4736.00f067aa0ba902b7."],
    ["version ff", "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"],
    ["an all-zero trace id", "00-00000000000000000000000000000000-b7ad6b7169203331-01"],
    ["an all-zero span id", "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01"],
  ])("ignores %s", (_, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
    expect(producerLinks({ applicationProperties: value === undefined ? {} : { "Diagnostic-Id": value as string } })).toEqual([]);
  });
});

describe("delivery source", () => {
  it.each([
    [{ deliveryCount: 0, applicationProperties: {} }, "other"],
    [{ deliveryCount: 1, applicationProperties: {} }, "redelivery"],
    [{ deliveryCount: 0, applicationProperties: { "chargeguard-attempt": 3 } }, "retry"],
    [{ deliveryCount: 2, applicationProperties: { "chargeguard-attempt": 3 } }, "redelivery"],
    [{ deliveryCount: 0, applicationProperties: { "chargeguard-resubmitted-from": "billing/$DeadLetterQueue#4" } }, "resubmission"],
  ] as const)("%o is %s", (message, source) => {
    expect(deliverySource(message)).toBe(source);
  });
});
