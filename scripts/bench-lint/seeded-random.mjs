// The benchmark's one source of randomness: seeded, so every run (and every machine) lints the same corpus.

/** mulberry32: a small seeded generator, so every run lints the same corpus. */
export function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The draws the corpus makes, all from one stream: the order of draws is part of what makes the corpus. */
export function seededDraws(seed) {
  const random = seeded(seed);
  return {
    random,
    pick: (items) => items[Math.floor(random() * items.length)],
    between: (low, high) => low + Math.floor(random() * (high - low + 1)),
  };
}
