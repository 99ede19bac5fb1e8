// Types for install-size.mjs (shared by bench:footprint and test/templates/vendor.e2e.test.ts).
export const SIZE_GOALS: { production: number; chargeguard: number };
export function forbiddenPackages(database: string): string[];
export function sizeOf(target: string): number;
export function installedPackages(modules: string): string[];
export function forbiddenIn(modules: string, database: string): string[];
export function groupSizes(modules: string): [string, number][];
