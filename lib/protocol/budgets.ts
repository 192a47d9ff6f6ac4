// Budgets and spend: what GET /api/me/budget, the admin's budget, group and
// usage routes take and answer, for the pages that show them. Isomorphic:
// zod and types only.
import { z } from "zod";
import { addDays, BUDGET_PERIODS, BUDGET_UNITS, daysBetween, MAX_BUDGET_AMOUNT, USAGE_GROUPINGS, type UsageGrouping } from "./budget-units";

// What the page needs without zod is in ./budget-units.
export {
  addDays,
  BUDGET_PERIODS,
  BUDGET_UNITS,
  BUDGET_WARNING_SHARE,
  daysBetween,
  MAX_BUDGET_AMOUNT,
  USAGE_GROUPINGS,
  type BudgetPeriod,
  type BudgetUnit,
  type UsageGrouping,
} from "./budget-units";

/** A budget: an amount of US dollars or tokens a day, a week (from Monday) or a month, in the operator's time zone. */
export const budgetSchema = z.strictObject({
  amount: z
    .number({ error: "must be a number" })
    .min(0, "must be 0 or more")
    .max(MAX_BUDGET_AMOUNT, `must be at most ${MAX_BUDGET_AMOUNT}`)
    .refine((amount) => Number.isInteger(amount * 1_000_000), "must have at most 6 decimals"),
  unit: z.enum(BUDGET_UNITS, { error: 'must be "usd" or "tokens"' }),
  period: z.enum(BUDGET_PERIODS, { error: 'must be "day", "week" or "month"' }),
});
export type Budget = z.infer<typeof budgetSchema>;

/** PUT /api/admin/budgets/:scope takes a budget, or null to clear it. */
export const budgetChangeSchema = budgetSchema.nullable();

/** Whose budget: everyone's (`default`), guests', a group's members' (`group:<id>`), one person's (`person:<id>`). */
export type BudgetScope = "default" | "guests" | `group:${string}` | `person:${string}`;

/** A budget as it stands for its person now. `spent` and `remaining` are in its unit; `resetsAt` is when the period ends (ISO). */
export interface BudgetStatus extends Budget {
  spent: number;
  remaining: number;
  resetsAt: string;
}

/** GET /api/me/budget: the budget that binds the caller, or null when none does. */
export interface MeBudget {
  budget: BudgetStatus | null;
}


/** GET /api/admin/budgets: every budget set by an admin, and the operator's variables' (not changeable here). */
export interface BudgetList {
  budgets: Array<Budget & { scope: BudgetScope }>;
  variables: { default: Budget | null; guests: Budget | null };
}

export const groupNameSchema = z.string({ error: "must be a string" }).trim().min(1, "must not be empty").max(100, "must be at most 100 characters");

/** POST /api/admin/groups and PATCH /api/admin/groups/:id take a group's name. */
export const groupNameChangeSchema = z.strictObject({ name: groupNameSchema });

/** GET /api/admin/groups: every group, by name. */
export interface GroupList {
  groups: BudgetGroup[];
}

/** A group of people an admin sets one budget for. */
export interface BudgetGroup {
  id: string;
  name: string;
  members: Array<{ id: string; name: string; email: string; fromClaim: boolean }>;
  budget: Budget | null;
}


/** A line of GET /api/admin/usage: what the calls of one person, group, model or day spent. `cost` null: a model among them has no price. */
export interface UsageLine {
  key: string;
  label: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cost: number | null;
  /** Turns a budget refused before they started. */
  refused: number;
}

/** GET /api/admin/usage?from=&to=&groupBy=: the lines, largest cost first (by day: in order). */
export interface UsageReport {
  rows: UsageLine[];
  /** True when there were more lines than MAX_USAGE_ROWS: the rows are the largest of them. */
  truncated: boolean;
}

/** The most lines GET /api/admin/usage answers (people, groups or models; a range's days are fewer). */
export const MAX_USAGE_ROWS = 5_000;

/** The longest range GET /api/admin/usage reads: a year, a leap day included. */
export const MAX_USAGE_DAYS = 366;
/** The days GET /api/admin/usage reads when the query names none: the last 30, today among them. */
export const DEFAULT_USAGE_DAYS = 30;

const ISO_DAY = z.iso.date({ error: "must be a day that exists, as YYYY-MM-DD" });


/**
 * GET /api/admin/usage's query, against the operator's `today`: `to`
 * defaults to today, `from` to the 30 days that end on `to`; the range is
 * in order and at most a year long.
 */
export function usageQuerySchema(today: string) {
  return z
    .object({
      from: ISO_DAY.optional(),
      to: ISO_DAY.optional(),
      groupBy: z.enum(USAGE_GROUPINGS, { error: 'must be "person", "group", "model" or "day"' }),
      format: z.enum(["json", "csv"], { error: 'must be "json" or "csv"' }).default("json"),
    })
    .transform(({ from, to = today, ...rest }) => ({ ...rest, to, from: from ?? addDays(to, 1 - DEFAULT_USAGE_DAYS) }))
    .refine(({ from, to }) => from <= to, { error: "from must not come after to", path: ["from"] })
    .refine(({ from, to }) => daysBetween(from, to) <= MAX_USAGE_DAYS, { error: `the range must be at most ${MAX_USAGE_DAYS} days`, path: ["to"] });
}
export type UsageQuery = z.infer<ReturnType<typeof usageQuerySchema>>;

/** What the admin's Spend page shows of a range: every day of it, its totals, who spent most and whose turns a budget refused. */
export interface SpendOverview {
  from: string;
  to: string;
  /** Every day of the range, in order, a day with no spend among them. */
  days: UsageLine[];
  totals: Omit<UsageLine, "key" | "label">;
  /** The ten people who spent most (by cost, then tokens). */
  topSpenders: UsageLine[];
  /** The people whose turns a budget refused, most refused first (at most ten). */
  refused: UsageLine[];
}
