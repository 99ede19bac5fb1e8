// What a run opens with, drawn before its commands, a quarter of the runs each: nothing, a valid billing's SDK retry met
// by 429s then a day (model-retry-refused.ts), an outage opening the breakers while the fleet bills in arrears
// (model-breaker-faults.ts; a no-op outside a vault cell), or Stripe refusing the key, 401 or 403, until it heals
// (model-key-faults.ts). Drawn among the ~25 kinds of command alone, each was missed by files of the small size with
// the defect it exists for reintroduced (defects 1, 3 and 2 of issue 41: four files of four, three of three, one of
// two); as an opening, a file of eight runs meets the retry with odds 90 in 100, an arrears outage in a vault cell 77
// in 100, a refused key 90 in 100. Shrinking drops the opening first (to nothing).
import fc from "fast-check";
import { outageInArrears, type OutageOf } from "./model-breaker-faults.js";
import type { command } from "./model-command.js";
import { keyRefused, type KeyRefusal } from "./model-key-faults.js";
import { retryRefusedThenADay } from "./model-retry-refused.js";
import { modelSpendCaps } from "./model-world.js";

type Cmd = ReturnType<typeof command>;

export function runOpenings(): fc.Arbitrary<Cmd[]> {
  const retried = fc.tuple(fc.integer({ min: 100, max: 2_000 }), fc.constantFrom(...modelSpendCaps.currencies)).map(([base, currency]) => [retryRefusedThenADay("valid", base, currency)]);
  const arrears = fc.constantFrom<OutageOf>("stripe", "vault").map((of) => [outageInArrears(of)]);
  const refused = fc.constantFrom<KeyRefusal>("revoked", "permission").map((refusal) => [keyRefused(refusal)]);
  return fc.oneof(fc.constant<Cmd[]>([]), retried, arrears, refused);
}
