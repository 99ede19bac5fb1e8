// stripe (0.14-0.37 s to import alone, 218 modules): loaded when the first Stripe client is made, not when the runtime
// is imported (issue 32).
//
// Synchronous, unlike the other loaders: a client is made on the hot path, synchronously (`createStripeClient`,
// `stripeAccess().stripeFor`, both exported and called by generated flows), and an async `import()` would change
// those signatures. `require` from ESM is synchronous, and it loads Node's CommonJS build of stripe (the package's
// `require` export). That build's classes are not the ESM build's, so a consumer who also writes `import Stripe from
// "stripe"` holds a second copy: an `instanceof Stripe.errors.X` across the two is false. Nothing in the runtime uses
// `instanceof` on Stripe's classes (stripe/stripe-error.ts recognises Stripe's errors by their `type`, Stripe's
// documented way), so errors from either build classify the same.
import { createRequire } from "node:module";
import type Stripe from "stripe";
import { ConfigurationError } from "../core/errors.js";
import { missingDependency } from "./load-once.js";

/** The Stripe constructor (the CommonJS build's, typed as the package's). */
export type StripeModule = typeof Stripe;

const require = createRequire(import.meta.url);
let loaded: StripeModule | undefined;

/** The `stripe` package, required on first call and cached; a ConfigurationError naming the package when absent. */
export function loadStripe(): StripeModule {
  if (loaded) return loaded;
  try {
    loaded = require("stripe") as StripeModule;
  } catch (error) {
    if (!missingStripe(error)) throw error;
    throw new ConfigurationError(missingDependency("stripe", "calling Stripe"));
  }
  return loaded;
}

/** Only stripe itself missing: a module stripe requires that is missing is a broken install, passed on as it is. */
function missingStripe(error: unknown): boolean {
  return (error as { code?: unknown }).code === "MODULE_NOT_FOUND" && /Cannot find module 'stripe'/.test((error as Error).message);
}
