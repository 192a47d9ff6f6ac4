// What the page needs of budgets without the wire's checks: the units, the
// periods, the largest amount and the share past which people are warned.
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
