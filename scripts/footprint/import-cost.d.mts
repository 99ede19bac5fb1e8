// Types for import-cost.mjs (shared by bench:footprint and bench:import).
export function importOnce(entry: string): { ms: number; rss: number };
export function importCost(entry: string, runs: number): { ms: number; rss: number };
export function median(values: readonly number[]): number;
