// ISO 8601 durations as Azure Service Bus takes them (lockDuration, defaultMessageTimeToLive, ...), parsed strictly.
// Only fixed-length units are accepted: days, hours, minutes, seconds. Years, months and weeks are refused because
// `P5M` is five *months* (not minutes) and a calendar month has no fixed length in milliseconds.
import { ChargeguardError } from "../errors/index.js";

export class DurationFormatError extends ChargeguardError {
  override readonly name = "DurationFormatError";
}

const MS = { day: 86_400_000, hour: 3_600_000, minute: 60_000, second: 1_000 } as const;

const ISO_DURATION = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,3})?)S)?)?$/;

/** Parses `PT30S`, `PT2M`, `PT1H30M`, `P14D`, `P1DT12H` into milliseconds. Throws a DurationFormatError naming the fix. */
export function parseIsoDuration(text: string): number {
  const shown = JSON.stringify(text);
  if (typeof text !== "string" || text.length === 0) {
    throw new DurationFormatError(`${shown} is not an ISO 8601 duration: expected e.g. "PT30S", "PT2M" or "P14D"`);
  }
  if (/^\d{1,2}:\d{2}:\d{2}$/.test(text) || /^\d+\.\d{1,2}:\d{2}:\d{2}$/.test(text)) {
    throw new DurationFormatError(`${shown} is a .NET TimeSpan: write it as ISO 8601, e.g. "PT5M" for 00:05:00`);
  }
  const upper = text.toUpperCase();
  const datePart = upper.startsWith("P") ? (upper.slice(1).split("T")[0] ?? "") : "";
  if (/\d+M/.test(datePart)) {
    const minutes = upper.replace(/^P/, "PT");
    throw new DurationFormatError(
      `${shown} means months (a month has no fixed length): for minutes write "${minutes}" (the T starts the time part)`,
    );
  }
  if (/\d+[YW]/.test(datePart)) {
    throw new DurationFormatError(`${shown} uses years or weeks: write days, e.g. "P14D"`);
  }
  const match = ISO_DURATION.exec(text);
  if (!match || text === "P" || text.endsWith("T")) {
    throw new DurationFormatError(
      `${shown} is not an ISO 8601 duration of days, hours, minutes and seconds: expected e.g. "PT30S", "PT2M", "P14D"`,
    );
  }
  const [, days, hours, minutes, seconds] = match;
  return (
    Number(days ?? 0) * MS.day +
    Number(hours ?? 0) * MS.hour +
    Number(minutes ?? 0) * MS.minute +
    Math.round(Number(seconds ?? 0) * MS.second)
  );
}

/** Formats milliseconds as the shortest ISO 8601 duration: 120000 -> "PT2M", 1209600000 -> "P14D". */
export function formatIsoDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0 || !Number.isInteger(ms)) {
    throw new DurationFormatError(`cannot format ${ms} ms as a duration: expected a non-negative whole number`);
  }
  const days = Math.floor(ms / MS.day);
  let rest = ms - days * MS.day;
  const hours = Math.floor(rest / MS.hour);
  rest -= hours * MS.hour;
  const minutes = Math.floor(rest / MS.minute);
  rest -= minutes * MS.minute;
  const seconds = rest / MS.second;
  const time = `${hours ? `${hours}H` : ""}${minutes ? `${minutes}M` : ""}${seconds ? `${seconds}S` : ""}`;
  if (days === 0 && time === "") return "PT0S";
  return `P${days ? `${days}D` : ""}${time ? `T${time}` : ""}`;
}

/** Plain words for a duration in logs and explanations: 91500 -> "91.5 s", 10470000 -> "2.9 h", 1209600000 -> "14 days". */
export function describeMs(ms: number): string {
  const round = (value: number) => Number(value.toFixed(1));
  if (ms >= MS.day && ms % MS.day === 0) return `${ms / MS.day} day${ms === MS.day ? "" : "s"}`;
  if (ms >= MS.hour) return `${round(ms / MS.hour)} h`;
  if (ms >= 10 * MS.minute) return `${round(ms / MS.minute)} min`;
  return `${Number((ms / MS.second).toFixed(3))} s`;
}
