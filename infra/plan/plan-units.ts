// Units for the plan's text: every figure the plan prints carries one. Timings a reader compares (lock, hold,
// delivery budget, Stripe's worst case, grace period) are all in seconds; windows and retention read as
// "5 min", "2 h 21 min", "14 days"; rates as "4 messages/s".
import { parseIsoDuration } from "../../tuning/index.js";

/** A figure rounded for reading: 1234 -> "1234", 103.5 -> "103.5", 12.345 -> "12.3", 0.5797 -> "0.58". */
export function figure(value: number): string {
  if (!Number.isFinite(value) || Number.isInteger(value)) return String(value);
  if (Math.abs(value) >= 1) return String(Number(value.toFixed(1)));
  return String(Number(value.toPrecision(2)));
}

/** Milliseconds as seconds: 207000 -> "207 s", 91500 -> "91.5 s". */
export const seconds = (ms: number): string => `${figure(ms / 1000)} s`;

const UNITS: [number, string][] = [
  [86_400_000, "days"],
  [3_600_000, "h"],
  [60_000, "min"],
  [1000, "s"],
];

/** Milliseconds as a span: 210000 -> "3 min 30 s", 8460000 -> "2 h 21 min", 1209600000 -> "14 days". */
export function span(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000) * 1000;
  for (const [size, unit] of UNITS) {
    const whole = Math.floor(rest / size);
    if (whole > 0) parts.push(`${whole} ${unit === "days" && whole === 1 ? "day" : unit}`);
    rest -= whole * size;
  }
  return parts.join(" ");
}

/** An ISO 8601 duration as a span ("PT15M" -> "15 min"); text that is not one is shown as given. */
export function isoSpan(iso: unknown): string {
  try {
    return span(parseIsoDuration(String(iso)));
  } catch {
    return String(iso);
  }
}

/** "1 e-mail", "2 webhooks". */
export const count = (n: number, noun: string, plural = `${noun}s`): string => `${n} ${n === 1 ? noun : plural}`;

/** A rate with its unit: rate(4, "messages") -> "4 messages/s"; below 1/s it reads per minute. */
export function rate(perSecond: number, noun: string): string {
  return perSecond >= 1 || perSecond === 0 ? `${figure(perSecond)} ${noun}/s` : `${figure(perSecond * 60)} ${noun}/min`;
}
