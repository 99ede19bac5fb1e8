import { describe, expect, it } from "vitest";
import { describeError, errorMessage } from "../../../runtime/core/describe-error.js";

describe("describeError / errorMessage", () => {
  it("names an Error's kind, or gives its message alone", () => {
    const error = new TypeError("x is not a function");
    expect(describeError(error)).toBe("TypeError: x is not a function");
    expect(errorMessage(error)).toBe("x is not a function");
  });

  it("says what is inside an AggregateError without a message (how Node reports a host whose every address refused)", () => {
    const refused = new AggregateError([new Error("connect ECONNREFUSED 127.0.0.1:5432"), new Error("connect ECONNREFUSED ::1:5432")], "");
    expect(describeError(refused)).toBe("Error: connect ECONNREFUSED 127.0.0.1:5432; Error: connect ECONNREFUSED ::1:5432");
    expect(errorMessage(refused)).toBe("connect ECONNREFUSED 127.0.0.1:5432; connect ECONNREFUSED ::1:5432");
  });

  it("turns a thrown non-Error into its string", () => {
    expect(describeError("plain")).toBe("plain");
    expect(errorMessage(42)).toBe("42");
  });
});
