/** Per-queue settings, named after the Azure queue properties they stand for. */
export interface EmulatedQueueOptions {
  /** LockDuration. Default 60 000 (Azure's default); Azure allows 5 s to 5 min, the emulator any value >= 100 ms. */
  lockDurationMs?: number;
  /** MaxDeliveryCount: deliveries after which a released message is dead-lettered. Default 10. */
  maxDeliveryCount?: number;
  /** DefaultMessageTimeToLive; a message's own timeToLive is capped by it. Default: never expires. */
  defaultTtlMs?: number;
  /** DuplicateDetectionHistoryTimeWindow. Set: duplicate detection on (RequiresDuplicateDetection). Default: off. */
  duplicateDetectionWindowMs?: number;
  /** DeadLetteringOnMessageExpiration: expired messages go to the dead-letter subqueue instead of vanishing. */
  deadLetteringOnMessageExpiration?: boolean;
}

export interface ResolvedQueueOptions {
  lockDurationMs: number;
  maxDeliveryCount: number;
  defaultTtlMs: number | undefined;
  duplicateDetectionWindowMs: number | undefined;
  deadLetteringOnMessageExpiration: boolean;
}

/**
 * The queue numbers of a tuning (what `pulumi up` deploys for a latency budget). Declared here, not imported: the
 * sandbox stands for Azure and knows nothing of chargeguard; a `QueueTuning` from chargeguard/tuning fits it.
 */
export interface QueueTuningSettings {
  lockDurationMs: number;
  maxDeliveryCount: number;
  defaultMessageTimeToLiveMs: number;
  duplicateDetectionWindowMs: number;
}

/**
 * Queue options from the infra tuning, set as `BillingQueue` deploys them: dead-lettering on expiry always, and
 * duplicate detection unless the namespace is Basic tier (`duplicateDetection: false`).
 */
export function queueOptionsFromTuning(
  tuning: QueueTuningSettings,
  deployment: { duplicateDetection?: boolean } = {},
): EmulatedQueueOptions {
  return {
    lockDurationMs: tuning.lockDurationMs,
    maxDeliveryCount: tuning.maxDeliveryCount,
    defaultTtlMs: tuning.defaultMessageTimeToLiveMs,
    ...(deployment.duplicateDetection === false ? {} : { duplicateDetectionWindowMs: tuning.duplicateDetectionWindowMs }),
    deadLetteringOnMessageExpiration: true,
  };
}

const queueNamePattern = /^[A-Za-z0-9][A-Za-z0-9._\-/]{0,259}$/;

export function resolveQueueOptions(name: string, options: EmulatedQueueOptions = {}): ResolvedQueueOptions {
  if (!queueNamePattern.test(name) || name.includes("$")) {
    throw new TypeError(
      `Queue name ${JSON.stringify(name)} is invalid: use letters, digits, '.', '-', '_' or '/' (up to 260 characters).`,
    );
  }
  const positive = (field: keyof EmulatedQueueOptions, value: number | undefined, min: number): void => {
    if (value !== undefined && (!Number.isFinite(value) || value < min)) {
      throw new RangeError(`Queue ${name}: ${field} must be a finite number >= ${min}, got ${value}`);
    }
  };
  positive("lockDurationMs", options.lockDurationMs, 100);
  positive("defaultTtlMs", options.defaultTtlMs, 1);
  positive("duplicateDetectionWindowMs", options.duplicateDetectionWindowMs, 1);
  const maxDeliveryCount = options.maxDeliveryCount ?? 10;
  if (!Number.isInteger(maxDeliveryCount) || maxDeliveryCount < 1) {
    throw new RangeError(`Queue ${name}: maxDeliveryCount must be an integer >= 1, got ${options.maxDeliveryCount}`);
  }
  return {
    lockDurationMs: options.lockDurationMs ?? 60_000,
    maxDeliveryCount,
    defaultTtlMs: options.defaultTtlMs,
    duplicateDetectionWindowMs: options.duplicateDetectionWindowMs,
    deadLetteringOnMessageExpiration: options.deadLetteringOnMessageExpiration ?? false,
  };
}
