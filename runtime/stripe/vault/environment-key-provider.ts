// A Stripe key from the environment, the same for every period. Meant for a restricted key (`rk_...`) that can do
// nothing but create PaymentIntents; it cannot cap amounts, so the guard's spend ledger is the only cap.
import { ConfigurationError } from "../../core/errors.js";
import { stripeKeyText } from "../../core/text/secret-syntax.js";
import { accountLabel } from "../account-label.js";
import { isLiveSecretKey } from "../key-destination.js";
import type { VaultKeyProvider } from "./key-provider.js";
import { runtimeEnvironment } from "../../core/environment.js";

export interface EnvironmentKeyProviderOptions {
  /** The key; default: `env.STRIPE_API_KEY`. */
  apiKey?: string;
  env?: NodeJS.ProcessEnv;
  /** Where the warning for a full-access test key goes; default console.warn. */
  warn?: (line: string) => void;
}

export class EnvironmentKeyProvider implements VaultKeyProvider {
  /** The key's hash: the same label the fleet's budget had before providers named their account. */
  readonly account: string;
  readonly #apiKey: string;

  constructor(options: EnvironmentKeyProviderOptions = {}) {
    // The key as it is meant, without the whitespace an env file leaves around it (key-destination.ts reads it so too).
    const apiKey = stripeKeyText(options.apiKey ?? runtimeEnvironment(options.env).stripeApiKey ?? "");
    if (apiKey === "") {
      throw new ConfigurationError("STRIPE_API_KEY is not set: give a restricted Stripe key (rk_...) allowed to write PaymentIntents");
    }
    if (isLiveSecretKey(apiKey)) {
      throw new ConfigurationError(
        "STRIPE_API_KEY is a live secret key (sk_live_...): a billing consumer must run with a restricted key (rk_live_...) " +
          "limited to PaymentIntents, or a per-period vault key",
      );
    }
    if (apiKey.startsWith("sk_test_")) {
      (options.warn ?? console.warn)(
        "chargeguard: STRIPE_API_KEY is a full-access test key (sk_test_...); production needs a restricted key (rk_live_...)",
      );
    } else if (!apiKey.startsWith("rk_")) {
      throw new ConfigurationError("STRIPE_API_KEY does not look like a Stripe key: expected a restricted key (rk_...)");
    }
    this.#apiKey = apiKey;
    this.account = accountLabel(apiKey);
  }

  /** The same key for every period. */
  keyFor(): Promise<string> {
    return Promise.resolve(this.#apiKey);
  }
}
