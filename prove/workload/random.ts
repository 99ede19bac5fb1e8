// A small seeded PRNG (mulberry32) so a proving-ground run is reproducible from its seed alone: the same seed gives
// the same workload and the same fault schedule on every machine. Not for anything secret.

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max] (both inclusive). */
  int(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** An independent stream derived from this seed and a label, so adding draws to one part never shifts another. */
  fork(label: string): Random;
}

export function seededRandom(seed: number): Random {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const random: Random = {
    next,
    int(min, max) {
      if (!Number.isInteger(min) || !Number.isInteger(max) || max < min) {
        throw new RangeError(`int(min, max) needs integers with min <= max, got ${min}, ${max}`);
      }
      return min + Math.floor(next() * (max - min + 1));
    },
    chance: (p) => next() < p,
    pick(items) {
      if (items.length === 0) throw new RangeError("pick() needs at least one item");
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
    fork: (label) => seededRandom(hashLabel(seed, label)),
  };
  return random;
}

/** FNV-1a over the label, mixed with the seed: a stable 32-bit seed for a named sub-stream. */
function hashLabel(seed: number, label: string): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < label.length; i++) {
    hash ^= label.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
