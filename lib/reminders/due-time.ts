import { TZDate } from "@date-fns/tz";
import { timeIn } from "@/lib/agent/network/tools/current-time";

// When a reminder is due, from what the model wrote: an ISO 8601 date-time
// with its offset ("2026-11-26T17:00:00+01:00", "…Z"), or a wall-clock time
// without one ("2026-11-26T17:00"), which is the user's own time (their
// page's time zone). @date-fns/tz does the zone arithmetic (daylight saving
// included), which Date alone cannot.

const WITH_OFFSET = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)$/i;
const WALL_CLOCK = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d)(?::(\d\d))?$/;

/** The instant `at` names, or undefined when it is not a date-time of either form (or not a real one). */
export function dueTime(at: string, timeZone: string): Date | undefined {
  const text = at.trim();
  if (WITH_OFFSET.test(text)) {
    const time = Date.parse(text);
    return Number.isNaN(time) ? undefined : new Date(time);
  }
  const wall = WALL_CLOCK.exec(text);
  if (!wall) return undefined;
  const [year, month, day, hour, minute, second = "0"] = wall.slice(1).map((part) => part ?? "0");
  const local = new TZDate(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second), timeZone);
  // A date that rolled over (February 30th) is no date the user meant.
  if (local.getDate() !== Number(day) || local.getMonth() !== Number(month) - 1) return undefined;
  return new Date(local.getTime());
}

/** The time as the user reads it, in their zone: "Thursday, 26 November 2026 at 17:00" (as current_time says it). */
export function localTime(time: Date, timeZone: string): string {
  return timeIn(timeZone, time).local;
}
