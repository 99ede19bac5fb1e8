import { randomBytes, randomUUID } from "node:crypto";

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

function randomAlphanumeric(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (const byte of bytes) out += alphabet[byte % alphabet.length];
  return out;
}

/**
 * Object ids shaped like Stripe's (`pi_`, `ch_`, ...): a random run per emulator plus a counter, so ids are unique
 * across emulators in one test run and cost no entropy per request.
 */
export class IdGenerator {
  readonly #run = randomAlphanumeric(10);
  #counter = 0;

  next(prefix: string): string {
    this.#counter += 1;
    return `${prefix}_${this.#run}${this.#counter.toString(36).padStart(6, "0")}`;
  }

  /** For client secrets: unguessable enough for a sandbox, and randomUUID draws from a cached entropy pool. */
  secret(): string {
    return randomUUID().replaceAll("-", "");
  }
}
