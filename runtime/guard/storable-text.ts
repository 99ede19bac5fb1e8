// Text PostgreSQL refuses to store: a NUL (in text: "invalid byte sequence 0x00"; in jsonb: 22P05 "unsupported
// Unicode escape sequence") and a lone UTF-16 surrogate (no UTF-8 encoding). An event carrying one can never be
// recorded: it is refused as InvalidEvent before its claim, so it neither spends retries nor fails the other claims
// group-committed with it.
import { InvalidEventError } from "../core/errors.js";

const refusedCharacters = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Throws InvalidEventError naming the first field (a dotted path) whose text the database would refuse. */
export function assertStorable(value: unknown, path: string): void {
  if (typeof value === "string") {
    if (refusedCharacters.test(value)) throw new InvalidEventError(`${path} holds a NUL or a lone surrogate, which the database cannot store`, path);
    return;
  }
  if (value === null || typeof value !== "object") return;
  for (const [name, inner] of Object.entries(value)) {
    if (refusedCharacters.test(name)) throw new InvalidEventError(`${path} has a field name with a NUL or a lone surrogate, which the database cannot store`, path);
    assertStorable(inner, `${path}.${name}`);
  }
}
