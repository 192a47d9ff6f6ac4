// Sidebar sections by calendar day in the viewer's time zone, like ChatGPT's.
import { differenceInCalendarDays } from "date-fns";
import type { ThreadSummary } from "@/lib/protocol/threads";

export const THREAD_GROUP_LABELS = ["Today", "Yesterday", "Previous 7 days", "Previous 30 days", "Older"] as const;
export type ThreadGroupLabel = (typeof THREAD_GROUP_LABELS)[number];

export interface ThreadGroup<T extends ThreadSummary = ThreadSummary> {
  label: ThreadGroupLabel;
  threads: T[];
}

function labelFor(updatedAt: Date, now: Date): ThreadGroupLabel {
  const daysAgo = differenceInCalendarDays(now, updatedAt);
  // A timestamp slightly in the future (clock skew) still counts as today.
  if (daysAgo <= 0) return "Today";
  if (daysAgo === 1) return "Yesterday";
  if (daysAgo <= 7) return "Previous 7 days";
  if (daysAgo <= 30) return "Previous 30 days";
  return "Older";
}

/** Groups threads by last activity; keeps the input order inside a group and drops empty groups. */
export function groupThreadsByDate<T extends ThreadSummary>(threads: T[], now: Date): ThreadGroup<T>[] {
  const byLabel = new Map<ThreadGroupLabel, T[]>();
  for (const thread of threads) {
    const label = labelFor(new Date(thread.updatedAt), now);
    const group = byLabel.get(label) ?? [];
    group.push(thread);
    byLabel.set(label, group);
  }
  return THREAD_GROUP_LABELS.filter((label) => byLabel.has(label)).map((label) => ({
    label,
    threads: byLabel.get(label)!,
  }));
}
