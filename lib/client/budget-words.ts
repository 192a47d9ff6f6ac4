// A person's budget in words, for the account menu, the thread's usage and
// the warning by the composer: "Used $0.40 of $2.00 today", "You have used
// 85% of your $2.00 for today; it renews at midnight." The renewal is said in
// the reader's own time zone. Pure.
import { amountText } from "@/lib/budgets/budget-text";
import { BUDGET_WARNING_SHARE, type BudgetPeriod } from "@/lib/protocol/budget-units";
import type { BudgetStatus } from "@/lib/protocol/budgets";

const PERIOD: Record<BudgetPeriod, string> = { day: "today", week: "this week", month: "this month" };

/** What part of the budget is spent, from 0; a budget of nothing is all spent. */
export function spentShare(status: Pick<BudgetStatus, "amount" | "spent">): number {
  return status.amount > 0 ? status.spent / status.amount : 1;
}

/** "Used $0.40 of $2.00 today", "Used 1,200 of 20,000 tokens this week". */
export function usedText(status: BudgetStatus): string {
  const spent = status.unit === "tokens" ? Math.round(status.spent).toLocaleString("en-US") : amountText(status.spent, "usd");
  return `Used ${spent} of ${amountText(status.amount, status.unit)} ${PERIOD[status.period]}`;
}

/** "$1.60 left today", "18,800 tokens left this month". */
export function leftText(status: BudgetStatus): string {
  return `${amountText(status.remaining, status.unit)} left ${PERIOD[status.period]}`;
}

export interface Clock {
  now: Date;
  /** The reader's time zone; undefined: the runtime's own (the browser's). */
  timeZone?: string;
}

/** The date of `at` in `timeZone`, as YYYY-MM-DD. */
const dayOf = (at: Date, timeZone?: string) => new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);

/** "at midnight", "at 1:00 AM", "tomorrow at 1:00 AM", "when Monday, March 2 begins", "on Monday, March 2 at 1:00 AM": when `at` comes, as its reader's clock says it. */
export function renewalText(at: Date, { now, timeZone }: Clock): string {
  const clock = new Intl.DateTimeFormat("en-US", { timeZone, hour: "numeric", minute: "2-digit", hourCycle: "h23" }).format(at);
  const midnight = clock === "00:00" || clock === "24:00";
  const time = midnight ? "midnight" : new Intl.DateTimeFormat("en-US", { timeZone, hour: "numeric", minute: "2-digit" }).format(at);
  const today = dayOf(now, timeZone);
  const tomorrow = dayOf(new Date(now.getTime() + 24 * 60 * 60 * 1000), timeZone);
  const day = dayOf(at, timeZone);
  // Midnight at the end of today is tonight's.
  if (day === today || (midnight && day === tomorrow)) return `at ${time}`;
  if (day === tomorrow) return `tomorrow at ${time}`;
  const date = new Intl.DateTimeFormat("en-US", { timeZone, weekday: "long", month: "long", day: "numeric" }).format(at);
  return midnight ? `when ${date} begins` : `on ${date} at ${time}`;
}

/** The warning that the budget runs low, once BUDGET_WARNING_SHARE of it is spent; null before. */
export function budgetWarning(status: BudgetStatus, clock: Clock): string | null {
  const share = spentShare(status);
  if (share < BUDGET_WARNING_SHARE) return null;
  const percent = Math.min(100, Math.floor(share * 100 + 1e-9));
  return `You have used ${percent}% of your ${amountText(status.amount, status.unit)} for ${PERIOD[status.period]}; it renews ${renewalText(new Date(status.resetsAt), clock)}.`;
}
