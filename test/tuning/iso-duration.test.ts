import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DurationFormatError, formatIsoDuration, parseIsoDuration } from "../../tuning/index.js";

describe("ISO 8601 durations", () => {
  it("parses the forms Service Bus uses", () => {
    expect(parseIsoDuration("PT30S")).toBe(30_000);
    expect(parseIsoDuration("PT2M")).toBe(120_000);
    expect(parseIsoDuration("PT1M30S")).toBe(90_000);
    expect(parseIsoDuration("PT1.5S")).toBe(1500);
    expect(parseIsoDuration("P14D")).toBe(14 * 86_400_000);
    expect(parseIsoDuration("P1DT12H")).toBe(36 * 3_600_000);
  });

  it("refuses P5M: five months, not five minutes, and says how to write minutes", () => {
    expect(() => parseIsoDuration("P5M")).toThrow(DurationFormatError);
    expect(() => parseIsoDuration("P5M")).toThrow('"P5M" means months (a month has no fixed length): for minutes write "PT5M"');
    expect(() => parseIsoDuration("P1Y")).toThrow(/years or weeks/);
    expect(() => parseIsoDuration("P2W")).toThrow(/years or weeks/);
    expect(() => parseIsoDuration("00:05:00")).toThrow(/\.NET TimeSpan: write it as ISO 8601, e\.g\. "PT5M"/);
    for (const bad of ["", "P", "PT", "P1DT", "5M", "pt5m", "PT-5S", "PT5", "T5M", "PT5M ", "PT1.2345S"]) {
      expect(() => parseIsoDuration(bad), bad).toThrow(DurationFormatError);
    }
  });

  it("formats the shortest form", () => {
    expect(formatIsoDuration(0)).toBe("PT0S");
    expect(formatIsoDuration(120_000)).toBe("PT2M");
    expect(formatIsoDuration(90_000)).toBe("PT1M30S");
    expect(formatIsoDuration(14 * 86_400_000)).toBe("P14D");
    expect(formatIsoDuration(86_400_000 + 3_600_000 + 1500)).toBe("P1DT1H1.5S");
    expect(() => formatIsoDuration(-1)).toThrow(DurationFormatError);
    expect(() => formatIsoDuration(1.5)).toThrow(DurationFormatError);
  });

  it("round-trips every whole number of milliseconds", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 * 86_400_000 }), (ms) => {
        expect(parseIsoDuration(formatIsoDuration(ms))).toBe(ms);
      }),
    );
  });
});
