// The house's two error bases, on the floor every room may import (scripts/lint/directions.mjs): what the kit throws
// on purpose is a ChargeguardError, in the runtime, the tuning, infra, the templates and the CLI alike, so
// `instanceof ChargeguardError` means "the kit refused" wherever a caller meets it; what a room throws to itself and
// catches again is a ChargeguardSignal. Each room's own errors extend these; a team imports them from
// `chargeguard/runtime` (this room has no door of its own, so each name keeps one entry point).

/** Every error the kit throws on purpose. Anything else reaching a handler is unforeseen: an unknown outcome. */
export class ChargeguardError extends Error {
  override name = "ChargeguardError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * What the kit throws to itself and catches again (a dependency down or throttling, a step not recorded, a consumer
 * stopped, an invoice not paid yet, a policy that does not apply): a signal of its own base, not a refusal, so
 * `instanceof ChargeguardError` keeps meaning "the kit refused" everywhere.
 */
export class ChargeguardSignal extends Error {
  override name = "ChargeguardSignal";
  constructor(message?: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
