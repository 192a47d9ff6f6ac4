// When a reminder is due, as the sidebar says it: in the viewer's time zone,
// the day in words while it is near ("Today, 5:00 PM", "Tomorrow, 9:30 AM",
// "Mon, 8:00 AM"), the date beyond a week.
import { differenceInCalendarDays } from "date-fns";

export function reminderWhen(dueAt: string | Date, now: Date, locale?: string): string {
  const due = new Date(dueAt);
  // Due already: the server posts it within a second or so.
  if (due.getTime() <= now.getTime()) return "Due now";
  const time = new Intl.DateTimeFormat(locale, { hour: "numeric", minute: "2-digit" }).format(due);
  const days = differenceInCalendarDays(due, now);
  if (days === 0) return `Today, ${time}`;
  if (days === 1) return `Tomorrow, ${time}`;
  if (days < 7) return `${new Intl.DateTimeFormat(locale, { weekday: "short" }).format(due)}, ${time}`;
  const sameYear = due.getFullYear() === now.getFullYear();
  return `${new Intl.DateTimeFormat(locale, { month: "short", day: "numeric", ...(sameYear ? {} : { year: "numeric" }) }).format(due)}, ${time}`;
}
