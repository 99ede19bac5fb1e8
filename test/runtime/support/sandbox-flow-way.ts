// A guarded flow run's way to the sandbox's Stripe, as a replica takes it: the environment's key, the template's SDK
// retries with a short timeout (a held try ends within a test), one clock for the guard and the emulator.
import type { FlowRunWay } from "../../../runtime/flows/guarded-flow-run.js";
import type { GuardStore } from "../../../runtime/guard/guard-store.js";
import { createStripeClient } from "../../../runtime/stripe/client.js";
import { EnvironmentKeyProvider } from "../../../runtime/stripe/vault/environment-key-provider.js";
import type { StripeEmulator } from "../../../sandbox/stripe/index.js";
import { DEFAULT_STRIPE_BUDGET } from "../../../tuning/queue-tuning.js";

export function sandboxFlowWay(store: GuardStore, emulator: Pick<StripeEmulator, "apiBase">, clock: { now(): number }, extra: Partial<FlowRunWay> = {}): FlowRunWay {
  return {
    store,
    keys: new EnvironmentKeyProvider({ apiKey: "rk_test_sandbox" }),
    stripeFor: (apiKey) => createStripeClient({ apiKey, apiBase: emulator.apiBase, timeoutMs: 500, maxNetworkRetries: DEFAULT_STRIPE_BUDGET.maxNetworkRetries }),
    expectedTotalCents: () => 0,
    now: () => clock.now(),
    ...extra,
  };
}
