// What the page needs of budgets without the wire's checks: the units, the
// periods, the largest amount, the share past which people are warned, and
// the spend report's groupings and days.
// No zod here: the page imports it, and zod's schemas would come with it
// (lib/protocol/budgets.ts checks the wire and re-exports these).

export const BUDGET_UNITS = ["usd", "tokens"] as const;
export type BudgetUnit = (typeof BUDGET_UNITS)[number];
export const BUDGET_PERIODS = ["day", "week", "month"] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** The most a budget may be: a billion dollars or tokens a period (more is no limit at all). */
export const MAX_BUDGET_AMOUNT = 1_000_000_000;

/** The share of a budget past which people are warned that it runs low. */
export const BUDGET_WARNING_SHARE = 0.8;

export const USAGE_GROUPINGS = ["person", "group", "model", "day"] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

/** The days from `from` to `to`, both counted (negative when `to` comes first). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

/** The day `days` after `day` (before, when negative). */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
