import { describe, expect, it } from "vitest";
import { TokenBucket } from "../../../runtime/audit/request-budget.js";

describe("TokenBucket", () => {
  it("spaces requests at the rate on a clock it is given, one saved up by default", async () => {
    let now = 0;
    const bucket = new TokenBucket(10, undefined, () => now);
    await bucket.take();
    let second = false;
    const pending = bucket.take().then(() => (second = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(second).toBe(false);
    now = 100;
    await pending;
    expect(second).toBe(true);
  });

  it("refuses a rate that is not a positive number", () => {
    expect(() => new TokenBucket(0)).toThrow("rate must be a positive number of requests per second, got 0");
    expect(() => new TokenBucket(Number.NaN)).toThrow(RangeError);
  });
});
