// The runtime's one errors module: a base class every deliberate error extends, and names callers can log (the vault's
// refusals among them: same names, constructors and `cause` as before).
import { describe, expect, it } from "vitest";
import * as runtime from "../../../runtime/index.js";

const classes = {
  InvalidEventError: runtime.InvalidEventError,
  ConfigurationError: runtime.ConfigurationError,
  BillingStateError: runtime.BillingStateError,
  SpendCapExceededError: runtime.SpendCapExceededError,
  EndpointNotAllowedError: runtime.EndpointNotAllowedError,
  VaultKeyError: runtime.VaultKeyError,
};

describe("runtime errors", () => {
  it.each(Object.entries(classes))("%s is a ChargeguardError and an Error, named for its class, carrying its cause", (name, ErrorClass) => {
    const cause = new Error("below");
    const error = new ErrorClass("what went wrong", ...((name === "InvalidEventError" ? ["amountCents", { cause }] : [{ cause }]) as [never, never]));
    expect(error).toBeInstanceOf(runtime.ChargeguardError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.message).toBe("what went wrong");
    expect(error.cause).toBe(cause);
    expect(String(error)).toBe(`${name}: what went wrong`);
  });

  it("InvalidEventError names the field at fault", () => {
    expect(new runtime.InvalidEventError("amountCents must be positive", "amountCents").field).toBe("amountCents");
  });

  it("a built-in error is not one of ours (what the billing handler treats as an unknown outcome)", () => {
    expect(new TypeError("x")).not.toBeInstanceOf(runtime.ChargeguardError);
  });
});
