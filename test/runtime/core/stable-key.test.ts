import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalDocument, canonicalJson } from "../../../runtime/core/canonical-json.js";
import { stableKey } from "../../../runtime/core/stable-key.js";

const fieldName = fc.string({ minLength: 1, maxLength: 12 }).filter((name) => name !== "__proto__");
const fieldValue = fc.oneof(
  fc.string(),
  fc.maxSafeInteger(),
  fc.date({ noInvalidDate: true }),
);
const fields = fc.dictionary(fieldName, fieldValue, { minKeys: 1, maxKeys: 8 });
const scope = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/);

function shuffled<T>(items: T[], seed: number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = (seed * (i + 7)) % (i + 1);
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

describe("stableKey", () => {
  it("is `<scope>:v1:<sha256 hex>`, at most 255 characters, for any valid fields and scope", () => {
    fc.assert(
      fc.property(fields, scope, (f, s) => {
        const key = stableKey(f, { scope: s });
        expect(key).toMatch(new RegExp(`^${s.replace(/[.]/g, "\\.")}:v1:[0-9a-f]{64}$`));
        expect(key.length).toBeLessThanOrEqual(255);
      }),
    );
  });

  it("does not depend on the order of the fields", () => {
    fc.assert(
      fc.property(fields, fc.nat(), (f, seed) => {
        const reordered = Object.fromEntries(shuffled(Object.entries(f), seed));
        expect(stableKey(reordered, { scope: "billing" })).toBe(stableKey(f, { scope: "billing" }));
      }),
    );
  });

  it("changes when any field's value changes, and with the scope", () => {
    fc.assert(
      fc.property(fields, fc.string(), (f, replacement) => {
        const [name, value] = Object.entries(f)[0] as [string, unknown];
        fc.pre(value !== replacement);
        expect(stableKey({ ...f, [name]: replacement }, { scope: "billing" })).not.toBe(stableKey(f, { scope: "billing" }));
      }),
    );
    const event = { customerId: "c1", billingPeriod: "2026-10", amount: 1200, currency: "usd" };
    expect(stableKey(event, { scope: "billing" })).not.toBe(stableKey(event, { scope: "refund" }));
    // A number and its string spelling are different business values.
    expect(stableKey({ amount: 1200 }, { scope: "billing" })).not.toBe(stableKey({ amount: "1200" }, { scope: "billing" }));
  });

  it("treats a Date and its ISO-8601 string alike", () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), (date) => {
        expect(stableKey({ at: date }, { scope: "s" })).toBe(stableKey({ at: date.toISOString() }, { scope: "s" }));
      }),
    );
  });

  it("rejects floats, NaN, Infinity, undefined and null, naming the field", () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Number.isInteger(x)),
        (amount) => {
          expect(() => stableKey({ customerId: "c1", amount }, { scope: "billing" })).toThrow(
            /field "amount" .*not an integer; money goes in integer minor units/,
          );
        },
      ),
    );
    expect(() => stableKey({ amount: Number.NaN }, { scope: "billing" })).toThrow(/field "amount" is NaN/);
    expect(() => stableKey({ amount: Number.POSITIVE_INFINITY }, { scope: "billing" })).toThrow(/field "amount" is Infinity/);
    expect(() => stableKey({ amount: 2 ** 60 }, { scope: "billing" })).toThrow(/field "amount" .*beyond the safe integer range/);
    expect(() => stableKey({ customerId: undefined }, { scope: "billing" })).toThrow(/field "customerId" is undefined/);
    expect(() => stableKey({ customerId: null }, { scope: "billing" })).toThrow(/field "customerId" is null/);
    expect(() => stableKey({ meta: { a: 1 } }, { scope: "billing" })).toThrow(/field "meta" is object/);
    expect(() => stableKey({ when: new Date(Number.NaN) }, { scope: "billing" })).toThrow(/field "when" is an invalid Date/);
    expect(() => stableKey({}, { scope: "billing" })).toThrow(/key fields are empty/);
  });

  it("rejects a scope that could not be told apart from the rest of the key", () => {
    for (const bad of ["", "a:b", "with space", "x".repeat(65), "-leading"]) {
      expect(() => stableKey({ a: "b" }, { scope: bad })).toThrow(/stableKey scope .* is invalid/);
    }
  });
});

describe("canonical JSON", () => {
  it("sorts keys and writes integers and strings as JSON", () => {
    expect(canonicalJson({ b: "x", a: 1, c: new Date("2026-10-01T00:00:00Z") })).toBe(
      '{"a":1,"b":"x","c":"2026-10-01T00:00:00.000Z"}',
    );
  });

  it("gives any document one spelling whatever its key order, and drops undefined members like JSON does", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed = JSON.parse(canonicalDocument(value)) as unknown;
        expect(canonicalDocument(parsed)).toBe(canonicalDocument(value));
      }),
    );
    expect(canonicalDocument({ b: { d: 1, c: [true, null] }, a: undefined })).toBe('{"b":{"c":[true,null],"d":1}}');
  });
});
