// The period's key for one delivery's Stripe work. A vault that refuses a key it issued (expired, unknown: the
// proxy answers before anything executes) gets one more try with a freshly fetched key. A past period whose key is
// still refused fails that period's events only (dead-lettered VaultKeyRefused, resubmittable once the vault issues
// it a key), never the intake: pausing on it paused the current period's billing too, in a loop.
import { ChargeguardSignal, VaultKeyError } from "../../core/errors.js";
import type { KeyRequest, VaultKeyProvider } from "./key-provider.js";

/** The dead-letter reason of a past period whose key the vault keeps refusing. */
export const pastPeriodKeyReason = "VaultKeyRefused";

/** A past period's key, refused twice: a verdict on that period's events, not on the deployment. */
export class PastPeriodKeyRefused extends ChargeguardSignal {
  override readonly name = "PastPeriodKeyRefused";
}

export async function withPeriodKey<T>(
  keys: VaultKeyProvider,
  period: string,
  request: KeyRequest,
  work: (apiKey: string) => Promise<T>,
  now: number = Date.now(),
): Promise<T> {
  try {
    return await work(await keys.keyFor(period, request));
  } catch (error) {
    if (!(error instanceof VaultKeyError) || keys.forget === undefined) throw error;
    keys.forget(period);
  }
  try {
    return await work(await keys.keyFor(period, request));
  } catch (error) {
    if (error instanceof VaultKeyError && period < new Date(now).toISOString().slice(0, 7)) {
      throw new PastPeriodKeyRefused(`the vault refuses a key for past period ${period}: ${error.message}`, { cause: error });
    }
    throw error;
  }
}
