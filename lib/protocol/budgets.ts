// Budgets and spend: what GET /api/me/budget, the admin's budget, group and
// usage routes take and answer, for the pages that show them. Isomorphic:
// zod and types only.
import { z } from "zod";
import { BUDGET_PERIODS, BUDGET_UNITS, MAX_BUDGET_AMOUNT } from "./budget-units";

// What the page needs without zod is in ./budget-units.
export { BUDGET_PERIODS, BUDGET_UNITS, BUDGET_WARNING_SHARE, MAX_BUDGET_AMOUNT, type BudgetPeriod, type BudgetUnit } from "./budget-units";

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

export const USAGE_GROUPINGS = ["person", "group", "model", "day"] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

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
}
