// One model command: its name, its precondition on the model, and its action on the real system, after which the
// invariant that holds at every moment is checked (no billing charged twice). Every command file builds on it.
import type fc from "fast-check";
import { chargedTwice, type MoneyModel } from "./model-invariants.js";
import type { ModelWorld } from "./model-world.js";

type Cmd = fc.AsyncCommand<MoneyModel, ModelWorld>;

/** Runs a command's action, then checks the invariant that holds at every moment. */
async function acting(m: MoneyModel, r: ModelWorld, what: string, act: () => Promise<void>): Promise<void> {
  r.log(`model: ${what}`);
  await act();
  const twice = chargedTwice(r, m);
  if (twice.length > 0) throw new Error(`after ${what}: ${twice.join("; ")}`);
}

export const command = (name: string, run: (m: MoneyModel, r: ModelWorld) => Promise<void>, check: (m: Readonly<MoneyModel>) => boolean = () => true): Cmd => ({
  check,
  run: (m, r) => acting(m, r, name, () => run(m, r)),
  toString: () => name,
});
